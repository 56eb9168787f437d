package dev.outboxer.cdi.internal.tx;

import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.jdbc.SqlWork;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.HeuristicMixedException;
import jakarta.transaction.HeuristicRollbackException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Finds the JTA objects portably (a CDI bean first, as Jakarta EE and Narayana's CDI integration
 * provide; JNDI {@code java:comp/...} second) and runs work in transactions of Outboxer's own,
 * telling a commit that failed (nothing happened) from one whose outcome is unknown.
 */
@ApplicationScoped
public class Transactions {

  private static final Logger LOG = Logger.getLogger(Transactions.class.getName());

  @Inject Instance<TransactionSynchronizationRegistry> registryBeans;
  @Inject Instance<UserTransaction> userTransactionBeans;
  @Inject Instance<TransactionManager> transactionManagerBeans;
  @Inject Jdbc jdbc;

  private volatile TransactionSynchronizationRegistry registry;
  /** Found on first use; empty where the server offers none to applications (Open Liberty). */
  private volatile Optional<TransactionManager> transactionManager;

  public TransactionSynchronizationRegistry registry() {
    TransactionSynchronizationRegistry found = registry;
    if (found == null) {
      found = bean(registryBeans, TransactionSynchronizationRegistry.class)
          .orElseGet(() -> lookup("java:comp/TransactionSynchronizationRegistry", TransactionSynchronizationRegistry.class));
      registry = found;
    }
    return found;
  }

  /**
   * The transaction manager, where the platform lets an application have it: a CDI bean (Narayana
   * in Java SE), else WildFly's and the common JNDI names, else Narayana's own accessor. Outboxer
   * uses it only to roll back a worker transaction that a relay took off the worker's thread
   * (without it such a transaction ends at its timeout) and to name the timeout of a caller's
   * transaction that ended.
   */
  Optional<TransactionManager> transactionManager() {
    Optional<TransactionManager> found = transactionManager;
    if (found == null) {
      found = Optional.empty();
      try {
        if (transactionManagerBeans.isResolvable()) {
          found = Optional.of(transactionManagerBeans.get());
        }
      } catch (RuntimeException unavailable) {
        // no bean: try JNDI
      }
      for (String name : new String[] {"java:comp/TransactionManager", "java:jboss/TransactionManager",
          "java:/TransactionManager"}) {
        if (found.isPresent()) {
          break;
        }
        try {
          found = Optional.of((TransactionManager) new InitialContext().lookup(name));
        } catch (NamingException | RuntimeException notThere) {
          // the next name
        }
      }
      if (found.isEmpty()) {
        try {
          // Java SE with Narayana and no CDI bean of the type: its own accessor.
          found = Optional.of((TransactionManager) Class.forName("com.arjuna.ats.jta.TransactionManager", true,
              Transactions.class.getClassLoader()).getMethod("transactionManager").invoke(null));
        } catch (Exception | LinkageError notNarayana) {
          // none to be had
        }
      }
      transactionManager = found;
    }
    return found;
  }

  /** Looked up on every call: in an application server the object may be bound to the calling component. */
  public UserTransaction userTransaction() {
    return bean(userTransactionBeans, UserTransaction.class)
        .orElseGet(() -> lookup("java:comp/UserTransaction", UserTransaction.class));
  }

  /**
   * The one CDI bean of a JTA type, if there is one; several are refused by name (an application's own
   * producer next to the platform's), not taken for none.
   */
  private static <T> Optional<T> bean(Instance<T> beans, Class<T> type) {
    if (beans.isResolvable()) {
      return Optional.of(beans.get());
    }
    if (beans.isAmbiguous()) {
      List<String> candidates = beans.handlesStream().map(handle -> handle.getBean().getBeanClass().getName()
          + " (" + handle.getBean() + ")").sorted().toList();
      throw new OutboxException("Outboxer found more than one CDI bean of type " + type.getSimpleName() + ": "
          + candidates + ". There must be one: remove the application's own producer where the platform provides"
          + " one (application servers, Outboxer's test kit), or make the one to use an @Alternative with @Priority.");
    }
    return Optional.empty();
  }

  /** The JTA status of the calling thread's transaction. */
  public int status() {
    return registry().getTransactionStatus();
  }

  /** The name of a JTA status, as {@link Status} names it: {@code STATUS_ROLLEDBACK}. */
  public static String statusName(int status) {
    return switch (status) {
      case Status.STATUS_ACTIVE -> "STATUS_ACTIVE";
      case Status.STATUS_MARKED_ROLLBACK -> "STATUS_MARKED_ROLLBACK";
      case Status.STATUS_PREPARED -> "STATUS_PREPARED";
      case Status.STATUS_COMMITTED -> "STATUS_COMMITTED";
      case Status.STATUS_ROLLEDBACK -> "STATUS_ROLLEDBACK";
      case Status.STATUS_UNKNOWN -> "STATUS_UNKNOWN";
      case Status.STATUS_NO_TRANSACTION -> "STATUS_NO_TRANSACTION";
      case Status.STATUS_PREPARING -> "STATUS_PREPARING";
      case Status.STATUS_COMMITTING -> "STATUS_COMMITTING";
      case Status.STATUS_ROLLING_BACK -> "STATUS_ROLLING_BACK";
      default -> "status " + status;
    };
  }

  /**
   * The JTA status of the calling thread's transaction, or {@link Status#STATUS_UNKNOWN} if even
   * asking fails (the transaction manager is shutting down): for describing a failure.
   */
  public int statusOrUnknown() {
    try {
      return status();
    } catch (RuntimeException e) {
      return Status.STATUS_UNKNOWN;
    }
  }

  /**
   * The timeout, in seconds, of the calling thread's transaction, as the transaction manager
   * states it; 0 if it cannot tell. Only for describing a transaction that ended: JTA has no
   * portable way to ask, so this asks Narayana's {@code com.arjuna.ats.jta.transaction.Transaction}
   * ({@code getTimeout()}) of a TransactionManager found as a CDI bean, in JNDI or as Narayana's
   * own, and gives up quietly elsewhere.
   */
  public int timeoutSeconds() {
    try {
      TransactionManager manager = transactionManager().orElse(null);
      Object transaction = manager == null ? null : manager.getTransaction();
      if (transaction == null) {
        return 0;
      }
      for (Class<?> type = transaction.getClass(); type != null; type = type.getSuperclass()) {
        for (Class<?> face : type.getInterfaces()) {
          if (face.getName().equals("com.arjuna.ats.jta.transaction.Transaction")) {
            Object timeout = face.getMethod("getTimeout").invoke(transaction);
            return timeout instanceof Integer seconds && seconds > 0 ? seconds : 0;
          }
        }
      }
      return 0;
    } catch (Exception | LinkageError unknown) {
      LOG.log(Level.FINE, "Could not ask the transaction manager for the transaction's timeout", unknown);
      return 0;
    }
  }

  /** Whether the calling thread has a transaction that work can still join. */
  public boolean isActive() {
    int status = status();
    return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
  }

  /** How a commit ended. */
  public enum Outcome {
    /** Committed. */
    COMMITTED,
    /** Rolled back: nothing of the transaction happened. */
    ROLLED_BACK,
    /**
     * Not known: the connection died during the commit, or the transaction manager reported a
     * heuristic outcome. The work may or may not have been committed, even in part.
     */
    UNKNOWN
  }

  /** A transaction begun by Outboxer on the calling thread. */
  public final class Tx implements BatchTransaction {
    private final UserTransaction transaction;
    /** The transaction's key in the registry, to tell it from another one on the thread. */
    private Object key;
    /** The transaction itself, where the transaction manager is available: to end it from off its thread. */
    private Transaction handle;
    private volatile boolean ended;
    /** Whether this thread called commit or rollback: only that dissociates it from the transaction. */
    private boolean finishedHere;
    private Exception failure;

    private Tx(UserTransaction transaction) {
      this.transaction = transaction;
    }

    /** Runs SQL on the connection Outboxer's data source (or EntityManager) gives this transaction. */
    @Override
    public <T> T call(SqlWork<T> work) throws java.sql.SQLException {
      return jdbc.call(work);
    }

    /**
     * Whether the transaction is still usable: not completed (also not rolled back by the transaction
     * manager's timeout, from any thread) and, on the calling thread, not marked for rollback.
     */
    @Override
    public boolean active() {
      return !ended;
    }

    /** Called on the transaction's own thread: whether it can still commit. */
    @Override
    public boolean activeOnThisThread() {
      return !ended && status() == Status.STATUS_ACTIVE;
    }

    /**
     * Whether the calling thread still has this transaction, as the worker left it with the relay:
     * {@code null} if so, else how the relay left it ("suspended", "replaced by another
     * transaction", "ended").
     */
    @Override
    public String tampering() {
      Object current;
      try {
        current = registry().getTransactionKey();
      } catch (RuntimeException unreadable) {
        current = null;
      }
      if (current != null && current.equals(key)) {
        return null;
      }
      if (current != null) {
        return "replaced by another transaction";
      }
      return ended ? "ended (committed or rolled back)" : "suspended";
    }

    /**
     * Puts the thread and the transaction right after a relay took the transaction off the
     * thread: rolls back a transaction the relay left on the thread in its place, and this one, if
     * it is still open somewhere, through the transaction manager.
     *
     * @return whether this transaction is over now; if not, it ends at its timeout (the platform
     *     offers no transaction manager to end it earlier)
     */
    @Override
    public boolean rollBackAfterTampering() {
      finishedHere = true;
      try {
        if (registry().getTransactionKey() != null && !Objects.equals(registry().getTransactionKey(), key)) {
          transaction.rollback(); // the relay's transaction, left on the worker's thread
        }
      } catch (Exception | LinkageError e) {
        LOG.log(Level.FINE, "Rolling back the transaction a relay left on the worker's thread failed", e);
      }
      if (!ended && handle != null) {
        try {
          handle.rollback();
        } catch (Exception | LinkageError e) {
          LOG.log(Level.FINE, "Rolling back the worker's transaction a relay took off its thread failed", e);
        }
      }
      boolean over = ended;
      ended = true;
      return over;
    }

    /** What made the last commit fail, or null. */
    @Override
    public Exception failure() {
      return failure;
    }

    @Override
    public Outcome commit() {
      finishedHere = true;
      try {
        transaction.commit();
        return Outcome.COMMITTED;
      } catch (RollbackException e) {
        failure = e;
        // A commit that lost its connection may be reported as rolled back although the database may have
        // received the commit: unknown, unless the transaction manager says why it rolled back.
        return lostConnection(e) ? Outcome.UNKNOWN : Outcome.ROLLED_BACK;
      } catch (HeuristicMixedException | HeuristicRollbackException e) {
        failure = e;
        return Outcome.UNKNOWN;
      } catch (Exception e) {
        // SystemException, IllegalStateException, a resource's runtime failure: the transaction manager
        // could not tell what the resources did.
        failure = e;
        disassociate();
        return Outcome.UNKNOWN;
      } finally {
        ended = true;
      }
    }

    @Override
    public void rollback() {
      ended = true;
      finishedHere = true;
      try {
        transaction.rollback();
      } catch (Exception e) {
        LOG.log(Level.FINE, "Rolling back Outboxer's transaction failed (it may have timed out already)", e);
        disassociate();
      }
    }

    /**
     * Ends the transaction on its own thread if that thread has not committed or rolled it back yet,
     * also when the transaction manager has already rolled it back (its timeout passed): the
     * transaction manager leaves such a transaction associated with the thread until the thread
     * ends it, and a pooled worker thread would otherwise fail every later begin.
     */
    @Override
    public void release() {
      if (!finishedHere) {
        rollback();
      }
    }

    private void disassociate() {
      try {
        if (transaction.getStatus() != Status.STATUS_NO_TRANSACTION) {
          transaction.rollback();
        }
      } catch (Exception ignored) {
        // Nothing more to do: the transaction manager has given up on this transaction.
      }
    }
  }

  /** Whether a failure says the connection to a resource broke (a communication failure, not a refusal). */
  static boolean lostConnection(Throwable failure) {
    java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>();
    java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    todo.add(failure);
    while (!todo.isEmpty()) {
      Throwable next = todo.poll();
      if (!seen.add(next)) {
        continue;
      }
      if (next instanceof javax.transaction.xa.XAException xa && (xa.errorCode == javax.transaction.xa.XAException
          .XAER_RMFAIL || xa.errorCode == javax.transaction.xa.XAException.XA_HEURHAZ)) {
        return true;
      }
      if (next instanceof java.sql.SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
        return true;
      }
      if (next instanceof java.sql.SQLTransientConnectionException || next instanceof java.sql.SQLRecoverableException
          || next instanceof java.sql.SQLNonTransientConnectionException || next instanceof java.net.SocketException) {
        return true;
      }
      if (next.getCause() != null) {
        todo.add(next.getCause());
      }
      for (Throwable suppressed : next.getSuppressed()) {
        todo.add(suppressed);
      }
    }
    return false;
  }

  /**
   * Begins a transaction on the calling thread. Its end is watched from any thread: {@link
   * Tx#active()} turns false when it completes, also when the transaction manager rolls it back
   * after the timeout.
   */
  public Tx begin(Duration timeout) throws Exception {
    UserTransaction transaction = userTransaction();
    transaction.setTransactionTimeout(seconds(timeout));
    try {
      transaction.begin();
    } finally {
      // The timeout sticks to the thread; leave pooled threads with the server's default.
      resetTimeout(transaction);
    }
    Tx tx = new Tx(transaction);
    try {
      tx.key = registry().getTransactionKey();
      Optional<TransactionManager> manager = transactionManager();
      if (manager.isPresent()) {
        tx.handle = handleOf(manager.get());
      }
      registry().registerInterposedSynchronization(new Synchronization() {
        @Override
        public void beforeCompletion() {}

        @Override
        public void afterCompletion(int status) {
          tx.ended = true;
        }
      });
    } catch (RuntimeException e) {
      // Timed out already (a pause right after the begin): give the thread back without a transaction.
      tx.rollback();
      throw e;
    }
    return tx;
  }

  private static Transaction handleOf(TransactionManager manager) {
    try {
      return manager.getTransaction();
    } catch (Exception | LinkageError unavailable) {
      return null;
    }
  }

  /**
   * Runs work in a new transaction and commits it, or rolls it back if the work throws.
   *
   * @param timeout the transaction timeout; the transaction manager rolls back a transaction that
   *     outlives it
   * @throws Exception what the work threw, or the commit failure
   */
  public <T> T inNewTransaction(Duration timeout, Callable<T> work) throws Exception {
    Tx tx = begin(timeout);
    T result;
    try {
      result = work.call();
    } catch (Throwable failure) {
      tx.rollback();
      throw failure;
    }
    Outcome outcome = tx.commit();
    if (outcome != Outcome.COMMITTED) {
      throw tx.failure();
    }
    return result;
  }

  /** Transaction timeouts are whole seconds in JTA: round up, so that a short lease is never shortened. */
  static int seconds(Duration timeout) {
    long millis = timeout.toMillis();
    long seconds = Math.max(1, (millis + 999) / 1000);
    return (int) Math.min(Integer.MAX_VALUE, seconds);
  }

  private static void resetTimeout(UserTransaction transaction) {
    try {
      transaction.setTransactionTimeout(0);
    } catch (Exception e) {
      LOG.log(Level.FINE, "Could not reset the transaction timeout", e);
    }
  }

  private static <T> T lookup(String name, Class<T> type) {
    try {
      return type.cast(new InitialContext().lookup(name));
    } catch (NamingException | RuntimeException e) {
      throw new OutboxException("Outboxer could not find the JTA " + type.getSimpleName() + ": there is no CDI bean of"
          + " that type and the JNDI lookup of " + name + " failed (" + e + "). In Java SE, produce one as a CDI bean"
          + " (Narayana: com.arjuna.ats.jta.UserTransaction.userTransaction()).", e);
    }
  }
}
