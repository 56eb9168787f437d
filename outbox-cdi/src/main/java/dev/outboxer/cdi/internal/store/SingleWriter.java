package dev.outboxer.cdi.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * SQLite's stand-ins for row locks and sequences ({@link Dialect#singleWriter()}): the database
 * has one writer at a time, and a transaction that writes keeps the write lock until it ends.
 *
 * <p>A transaction that reads first and writes later must upgrade its read to the write lock, and
 * SQLite refuses that at once ({@code SQLITE_BUSY}, without waiting) when another transaction
 * committed a write in between (WAL mode) or waits to commit one (rollback journal). So every
 * transaction of Outboxer's own that will write begins with a write ({@link #takeWriteLock}),
 * which waits for the current writer for up to the connection's {@code busy_timeout} instead: the
 * equivalent of {@code BEGIN IMMEDIATE} inside a transaction the transaction manager began.
 */
final class SingleWriter {

  /** The primary result code of SQLITE_BUSY: another connection holds the write lock. */
  private static final int SQLITE_BUSY = 5;
  /** SQLITE_LOCKED: a conflict within the same connection's shared cache. */
  private static final int SQLITE_LOCKED = 6;

  private SingleWriter() {}

  /**
   * Takes the database's write lock for the rest of the transaction, waiting for the current
   * writer up to {@code busy_timeout}. An update that matches no row still begins a write
   * transaction, and changes nothing.
   */
  static void takeWriteLock(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "UPDATE outbox_sequence SET last_value = last_value WHERE 0 = 1")) {
      statement.executeUpdate();
    }
  }

  /**
   * Raises a counter of {@code outbox_sequence} by {@code count} and returns its new value: the
   * last of the {@code count} values drawn. At least {@code floor + 1}, which lets a caller keep
   * values it handed out in transactions that rolled back from coming again.
   */
  static long draw(Connection connection, String sequence, int count, long floor) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_sequence"
        + " SET last_value = MAX(last_value, ?) + ? WHERE name = ? RETURNING last_value")) {
      statement.setLong(1, floor);
      statement.setInt(2, count);
      statement.setString(3, sequence);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          throw new SQLException("The row '" + sequence + "' of outbox_sequence is missing: the schema is incomplete"
              + " (see " + Dialect.SQLITE.ddlResource() + ")");
        }
        return rows.getLong(1);
      }
    }
  }

  /** Whether a failure means another connection held the write lock for longer than busy_timeout. */
  static boolean isBusy(SQLException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        int primary = sql.getErrorCode() & 0xff;
        if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
          return true;
        }
      }
    }
    return false;
  }
}
