package dev.outboxer.cdi.internal.admin;

import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.jdbc.SqlWork;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * One admin operation's database work, in the caller's JTA transaction if one is active and in a
 * transaction of its own otherwise ({@link Transactional.TxType#REQUIRED}); a failure rolls back a
 * transaction of its own and marks the caller's for rollback. A bean of its own, so that {@link
 * OutboxAdminBean} (not transactional itself) can run a call again in a new transaction after the
 * database rolled one back to break a deadlock.
 */
@ApplicationScoped
@Transactional
public class AdminTransaction {

  @Inject Jdbc jdbc;

  /**
   * Runs the work on the transaction's connection, then {@code inTransaction} with its result, still
   * inside the transaction (to register what happens after the commit).
   *
   * @throws OutboxException if the database refused the work; its cause is the {@link SQLException}
   */
  public <T> T call(SqlWork<T> work, Consumer<T> inTransaction) {
    T result;
    try {
      result = jdbc.call(work);
    } catch (SQLException e) {
      throw new OutboxException("Outboxer's admin operation failed in the database: " + e.getMessage(), e);
    }
    inTransaction.accept(result);
    return result;
  }
}
