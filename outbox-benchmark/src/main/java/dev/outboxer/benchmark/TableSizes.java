package dev.outboxer.benchmark;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The on-disk size of Outboxer's message table and its indexes, as the database reports it, with
 * what says whether cleanup keeps up.
 *
 * <p>PostgreSQL: {@code pg_relation_size} (the heap), {@code pg_indexes_size}, {@code
 * pg_total_relation_size} (with TOAST, free space and visibility maps) of {@code outbox_message}, the
 * total of {@code outbox_partition}, and from {@code pg_stat_user_tables} the dead and live row
 * versions and how often (auto)vacuum ran. MariaDB: the tablespace file of {@code outbox_message}
 * ({@code information_schema.INNODB_SYS_TABLESPACES.ALLOCATED_SIZE}: what the file takes, exact) and
 * InnoDB's estimates {@code DATA_LENGTH} / {@code INDEX_LENGTH} / {@code DATA_FREE} from {@code
 * information_schema.TABLES} (statistics, refreshed when a tenth of the rows changed, so they lag),
 * with the purge lag ({@code trx_rseg_history_len}: undo logs not purged yet).
 *
 * @param heapBytes PostgreSQL: the heap; MariaDB: the tablespace file's allocated size
 * @param indexBytes PostgreSQL: all indexes; MariaDB: INDEX_LENGTH (an estimate)
 * @param totalBytes PostgreSQL: pg_total_relation_size; MariaDB: the file's allocated size
 * @param partitionTableBytes the total size of outbox_partition (MariaDB: its file)
 * @param deadRows PostgreSQL: n_dead_tup; MariaDB: the history list length (undo records to purge)
 * @param liveRows PostgreSQL: n_live_tup; MariaDB: TABLE_ROWS (an estimate)
 * @param vacuums PostgreSQL: autovacuum_count + vacuum_count; MariaDB: -1
 */
record TableSizes(long heapBytes, long indexBytes, long totalBytes, long partitionTableBytes, long deadRows,
    long liveRows, long vacuums) {

  static TableSizes read(TestDatabase database) throws SQLException {
    try (Connection connection = database.connect()) {
      return database == TestDatabase.POSTGRESQL ? postgresql(connection) : mariadb(connection);
    }
  }

  private static TableSizes postgresql(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT pg_relation_size(s.relid),"
        + " pg_indexes_size(s.relid), pg_total_relation_size(s.relid), pg_total_relation_size('outbox_partition'),"
        + " s.n_dead_tup, s.n_live_tup, s.autovacuum_count + s.vacuum_count FROM pg_stat_user_tables s"
        + " WHERE s.relid = 'outbox_message'::regclass");
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return new TableSizes(rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4), rows.getLong(5),
          rows.getLong(6), rows.getLong(7));
    }
  }

  private static TableSizes mariadb(Connection connection) throws SQLException {
    long file = tablespace(connection, "outbox_message");
    long partitionFile = tablespace(connection, "outbox_partition");
    long history = -1;
    try (PreparedStatement statement = connection.prepareStatement("SELECT COUNT FROM information_schema.INNODB_METRICS"
        + " WHERE NAME = 'trx_rseg_history_len'");
        ResultSet rows = statement.executeQuery()) {
      if (rows.next()) {
        history = rows.getLong(1);
      }
    }
    try (PreparedStatement statement = connection.prepareStatement("SELECT INDEX_LENGTH, TABLE_ROWS FROM"
        + " information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'outbox_message'");
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return new TableSizes(file, rows.getLong(1), file, partitionFile, history, rows.getLong(2), -1);
    }
  }

  private static long tablespace(Connection connection, String table) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT ALLOCATED_SIZE FROM"
        + " information_schema.INNODB_SYS_TABLESPACES WHERE NAME = CONCAT(DATABASE(), '/', ?)")) {
      statement.setString(1, table);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getLong(1) : -1;
      }
    }
  }

  /**
   * The server's cleanup settings the sizes depend on: PostgreSQL's autovacuum switch and nap time
   * (with autovacuum off nothing removes dead rows and the table grows without bound), MariaDB's
   * purge threads.
   */
  static String cleanupSettings(TestDatabase database) {
    String sql = database == TestDatabase.POSTGRESQL
        ? "SELECT 'autovacuum ' || current_setting('autovacuum') || ', autovacuum_naptime '"
            + " || current_setting('autovacuum_naptime')"
        : "SELECT CONCAT('innodb_purge_threads ', @@innodb_purge_threads)";
    try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getString(1);
    } catch (SQLException e) {
      return "cleanup settings unknown (" + e.getMessage() + ")";
    }
  }

  /** One line for a progress report. */
  String describe(TestDatabase database) {
    if (database == TestDatabase.POSTGRESQL) {
      return String.format(Locale.ROOT, "heap %s, indexes %s, total %s, outbox_partition %s; dead rows %,d, live %,d,"
          + " vacuums %d", mb(heapBytes), mb(indexBytes), mb(totalBytes), mb(partitionTableBytes), deadRows, liveRows,
          vacuums);
    }
    return String.format(Locale.ROOT, "file %s (INDEX_LENGTH estimate %s), outbox_partition file %s; history list %,d,"
        + " rows (estimate) %,d", mb(totalBytes), mb(indexBytes), mb(partitionTableBytes), deadRows, liveRows);
  }

  static String mb(long bytes) {
    return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
  }
}
