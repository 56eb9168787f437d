package dev.outboxer.cdi.internal.tx;

import dev.outboxer.cdi.internal.jdbc.SqlWork;
import dev.outboxer.cdi.internal.tx.Transactions.Outcome;
import jakarta.transaction.Status;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A worker batch's plain database transaction, for a relay that does not use the worker's JTA
 * transaction: one connection of the outbox's data source, taken while the thread has no JTA
 * transaction (so the data source hands it out unenlisted), with auto-commit off, committed or
 * rolled back by Outboxer. No transaction manager and no XA calls: on PostgreSQL the driver sends
 * {@code BEGIN} with the first statement instead of in a round trip of its own. After a commit the
 * connection stays with the worker for its next batch ({@link PlainConnections}); after anything
 * else it is closed.
 *
 * <p>The transaction timeout holds as under a transaction manager: when it passes, the {@linkplain
 * Reaper reaper} ends the transaction from its own thread by aborting the connection
 * ({@link Connection#abort}), which makes the database roll it back and release the partition's
 * row lock, also while the worker's thread is stuck in a relay; a commit asked for after that
 * reports {@link Outcome#ROLLED_BACK}. A commit under way is not aborted (as a transaction manager
 * does not roll back a transaction that is completing).
 *
 * <p>Not guaranteed: a driver or pool that cannot abort a connection (its failure is logged once)
 * leaves a stuck transaction to the database's own limits (PostgreSQL: the claim's {@code
 * idle_in_transaction_session_timeout}).
 */
public final class LocalTransaction implements BatchTransaction {

  private static final Logger LOG = Logger.getLogger(LocalTransaction.class.getName());
  private static volatile boolean abortFailureLogged;

  /** Runs a task once after a delay on a thread of its own; the returned action cancels it. */
  @FunctionalInterface
  public interface Reaper {
    Runnable after(Duration delay, Runnable task);
  }

  private enum State { ACTIVE, COMMITTING, TIMED_OUT, ENDED }

  private final Connection connection;
  /** Where the connection goes after a commit: kept for the worker's next batch. */
  private final PlainConnections connections;
  private final Transactions transactions;
  private final Duration timeout;
  private final Runnable cancelReaper;
  private State state = State.ACTIVE;
  private volatile boolean ended;
  private boolean finishedHere;
  private Exception failure;

  private LocalTransaction(Connection connection, PlainConnections connections, Transactions transactions,
      Duration timeout, Reaper reaper) {
    this.connection = connection;
    this.connections = connections;
    this.transactions = transactions;
    this.timeout = timeout;
    this.cancelReaper = reaper.after(timeout, this::timedOut);
  }

  /**
   * Begins a plain transaction on the connection {@code connections} kept from the worker's last
   * batch, or on a new one of its data source. The calling thread must have no JTA transaction:
   * inside one the data source would hand out the connection enlisted in it. A connection whose
   * transaction commits goes back to {@code connections}; any other is closed.
   *
   * @throws IllegalStateException if the thread has a JTA transaction
   * @throws SQLException if no connection can be had or auto-commit cannot be switched off
   */
  public static LocalTransaction begin(PlainConnections connections, Duration timeout, Transactions transactions,
      Reaper reaper) throws SQLException {
    int status = transactions.status();
    if (status != Status.STATUS_NO_TRANSACTION) {
      throw new IllegalStateException("A worker batch in a plain database transaction was begun on a thread with a JTA"
          + " transaction (" + Transactions.statusName(status) + "); its connection would be enlisted in it");
    }
    return new LocalTransaction(connections.take(), connections, transactions, timeout, reaper);
  }

  @Override
  public <T> T call(SqlWork<T> work) throws SQLException {
    return work.apply(connection);
  }

  @Override
  public boolean active() {
    return !ended;
  }

  @Override
  public boolean activeOnThisThread() {
    // A plain transaction cannot be marked for rollback: only its end matters.
    return !ended;
  }

  /** A relay that says it does not use the worker's transaction must still not leave a JTA transaction behind. */
  @Override
  public String tampering() {
    int status;
    try {
      status = transactions.status();
    } catch (RuntimeException unreadable) {
      return null;
    }
    return status == Status.STATUS_NO_TRANSACTION ? null : "replaced by a JTA transaction that the relay began and"
        + " left on the thread (" + Transactions.statusName(status) + "; the relay says it does not use the worker's"
        + " transaction, so it has a plain database transaction and the thread none)";
  }

  @Override
  public boolean rollBackAfterTampering() {
    try {
      transactions.userTransaction().rollback();
    } catch (Exception | LinkageError e) {
      LOG.log(Level.FINE, "Rolling back the JTA transaction a relay left on the worker's thread failed", e);
    }
    rollback();
    return true;
  }

  @Override
  public Outcome commit() {
    synchronized (this) {
      finishedHere = true;
      if (state == State.TIMED_OUT) {
        failure = timedOutFailure();
        state = State.ENDED;
        close();
        return Outcome.ROLLED_BACK;
      }
      state = State.COMMITTING;
    }
    cancelReaper.run();
    try {
      connection.commit();
      return Outcome.COMMITTED;
    } catch (SQLException | RuntimeException e) {
      failure = e;
      // A commit that lost its connection may have reached the database; any other refusal rolled it back.
      return Transactions.lostConnection(e) ? Outcome.UNKNOWN : Outcome.ROLLED_BACK;
    } finally {
      end();
      if (failure != null) {
        rollbackQuietly();
        close();
      } else {
        connections.keep(connection);
      }
    }
  }

  @Override
  public Exception failure() {
    return failure;
  }

  @Override
  public void rollback() {
    synchronized (this) {
      finishedHere = true;
      if (state == State.ENDED) {
        return;
      }
      state = State.ENDED;
    }
    cancelReaper.run();
    ended = true;
    rollbackQuietly();
    close();
  }

  @Override
  public void release() {
    boolean finished;
    synchronized (this) {
      finished = finishedHere;
    }
    if (!finished) {
      rollback();
    }
  }

  /** The reaper's task at the transaction timeout: end a transaction that is not completing, as a transaction manager would. */
  private void timedOut() {
    synchronized (this) {
      if (state != State.ACTIVE) {
        return;
      }
      state = State.TIMED_OUT;
      ended = true;
    }
    try {
      connection.abort(Runnable::run);
    } catch (SQLException | RuntimeException | LinkageError e) {
      if (!abortFailureLogged) {
        abortFailureLogged = true;
        LOG.log(Level.WARNING, "Outboxer could not abort the connection of a worker batch that outlived its transaction"
            + " timeout of " + timeout + " (" + e + "); the batch does not commit, and its transaction ends when the"
            + " worker's thread returns or the database ends it. (Said once.)", e);
      }
    }
  }

  private synchronized void end() {
    state = State.ENDED;
    ended = true;
  }

  private SQLException timedOutFailure() {
    return new SQLTimeoutException("The worker batch's database transaction outlived its transaction timeout of "
        + timeout.toMillis() + " ms and was ended (its connection aborted)");
  }

  private void rollbackQuietly() {
    try {
      if (!connection.isClosed()) {
        connection.rollback();
      }
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.FINE, "Rolling back a worker batch's database transaction failed (its connection may be gone)", e);
    }
  }

  private void close() {
    PlainConnections.closeQuietly(connection);
  }
}
