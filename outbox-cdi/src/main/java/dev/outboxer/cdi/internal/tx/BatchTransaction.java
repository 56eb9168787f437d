package dev.outboxer.cdi.internal.tx;

import dev.outboxer.cdi.internal.jdbc.SqlWork;
import dev.outboxer.cdi.internal.tx.Transactions.Outcome;
import java.sql.SQLException;

/**
 * The transaction of one worker batch, begun on the worker's thread: a JTA transaction ({@link
 * Transactions.Tx}) or, for a relay that does not use the worker's transaction, a plain database
 * transaction on one connection ({@link LocalTransaction}). Both end on their own at the transaction
 * timeout (the transaction manager, or Outboxer aborting the connection), which {@link #active()}
 * tells from any thread; both report a commit as committed, rolled back or unknown.
 *
 * <p>Not guaranteed: that the database still holds the transaction while {@link #active()} answers
 * {@code true} (a connection killed from outside is noticed at the next statement).
 */
public interface BatchTransaction {

  /** Runs SQL in this transaction, on the calling (the transaction's own) thread. */
  <T> T call(SqlWork<T> work) throws SQLException;

  /** Whether the transaction has not ended: not committed, rolled back, or ended by its timeout. */
  boolean active();

  /** Called on the transaction's own thread: whether it can still commit (not ended, not marked for rollback). */
  boolean activeOnThisThread();

  /**
   * Whether the calling thread is as the worker left it with the relay: {@code null} if so, else
   * what the relay did to it, in words that follow "the worker's transaction".
   */
  String tampering();

  /**
   * Puts the thread and the transaction right after {@link #tampering()} found something: ends
   * what the relay left on the thread and this transaction.
   *
   * @return whether this transaction is over now; if not, it ends at its timeout
   */
  boolean rollBackAfterTampering();

  /** Commits, and says how it ended; never throws. */
  Outcome commit();

  /** What made the last commit fail, or null. */
  Exception failure();

  /** Rolls back; never throws. */
  void rollback();

  /** Ends the transaction on its own thread if that thread has not committed or rolled it back yet. */
  void release();
}
