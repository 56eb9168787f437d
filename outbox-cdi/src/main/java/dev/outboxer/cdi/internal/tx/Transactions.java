package dev.outboxer.cdi.internal.tx;

import dev.outboxer.OutboxException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Finds the JTA objects portably (a CDI bean first, as Jakarta EE and Narayana's CDI integration
 * provide; JNDI {@code java:comp/...} second) and runs work in a transaction of its own.
 */
@ApplicationScoped
public class Transactions {

  private static final Logger LOG = Logger.getLogger(Transactions.class.getName());

  @Inject Instance<TransactionSynchronizationRegistry> registryBeans;
  @Inject Instance<UserTransaction> userTransactionBeans;

  private volatile TransactionSynchronizationRegistry registry;

  public TransactionSynchronizationRegistry registry() {
    TransactionSynchronizationRegistry found = registry;
    if (found == null) {
      found = registryBeans.isResolvable()
          ? registryBeans.get()
          : lookup("java:comp/TransactionSynchronizationRegistry", TransactionSynchronizationRegistry.class);
      registry = found;
    }
    return found;
  }

  /** Looked up on every call: in an application server the object may be bound to the calling component. */
  public UserTransaction userTransaction() {
    return userTransactionBeans.isResolvable()
        ? userTransactionBeans.get()
        : lookup("java:comp/UserTransaction", UserTransaction.class);
  }

  /** Whether the calling thread has a transaction that work can still join. */
  public boolean isActive() {
    int status = registry().getTransactionStatus();
    return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
  }

  /**
   * Runs work in a new transaction and commits it, or rolls it back if the work throws.
   *
   * @param timeout the transaction timeout; the transaction manager rolls back a transaction that
   *     outlives it
   * @throws Exception what the work threw, or the commit failure
   */
  public <T> T inNewTransaction(Duration timeout, Callable<T> work) throws Exception {
    UserTransaction transaction = userTransaction();
    transaction.setTransactionTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toSeconds())));
    transaction.begin();
    T result;
    try {
      result = work.call();
    } catch (Throwable failure) {
      try {
        transaction.rollback();
      } catch (Exception rollbackFailure) {
        failure.addSuppressed(rollbackFailure);
      }
      throw failure;
    } finally {
      // The timeout sticks to the thread; leave pooled threads with the server's default.
      resetTimeout(transaction);
    }
    transaction.commit();
    return result;
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
