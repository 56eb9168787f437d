package dev.outboxer.cdi.internal.tx;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The connection a partition worker keeps from one plain batch transaction ({@link
 * LocalTransaction}) to the next while it drains a backlog, so that back-to-back batches do not
 * take a connection from the pool, switch its auto-commit off and have the pool switch it on again
 * each time: on MariaDB those are two round trips of a batch's seven, on a driver that sends each
 * setting as a statement.
 *
 * <p>Guarantees: a connection is kept only after its transaction committed (auto-commit off, no
 * transaction open); one whose transaction rolled back, timed out or failed to commit is closed, so
 * the next batch takes a fresh one. {@link #close} gives the kept connection back to the pool. Each
 * batch is still its own transaction: what other transactions committed before it began is
 * visible to it, also under MariaDB's repeatable read (a snapshot lasts for one transaction).
 *
 * <p>Not guaranteed: that a kept connection is still alive when the next batch begins (a database
 * that ended the session in between fails that batch's first statement, and the batch is retried
 * on a fresh connection). Not thread-safe: one worker run, on one thread, at a time.
 */
public final class PlainConnections implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(PlainConnections.class.getName());

  /** Looked up when a connection is needed, so that a missing data source fails a batch, not the run. */
  private final Supplier<DataSource> dataSource;
  /** Committed and ready for the next batch, or null. */
  private Connection kept;

  public PlainConnections(Supplier<DataSource> dataSource) {
    this.dataSource = dataSource;
  }

  /** The kept connection, or one from the data source with auto-commit off. */
  Connection take() throws SQLException {
    Connection connection = kept;
    if (connection != null) {
      kept = null;
      return connection;
    }
    connection = dataSource.get().getConnection();
    try {
      connection.setAutoCommit(false);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
    return connection;
  }

  /** A connection whose transaction committed: kept for the next batch. */
  void keep(Connection connection) {
    if (kept != null) {
      closeQuietly(kept);
    }
    kept = connection;
  }

  /** Gives the kept connection (if any) back to the data source. */
  @Override
  public void close() {
    Connection connection = kept;
    kept = null;
    if (connection != null) {
      closeQuietly(connection);
    }
  }

  static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.FINE, "Closing a worker batch's connection failed", e);
    }
  }
}
