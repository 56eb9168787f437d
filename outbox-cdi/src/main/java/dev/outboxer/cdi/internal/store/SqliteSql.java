package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.store.PublishStatements.NewMessage;
import dev.outboxer.PreparedTransaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link DialectSql} of SQLite: ids from the {@code outbox_sequence} counter row, drawn under the
 * database's write lock (see {@link SingleWriter}), which also serialises every publisher, so group
 * locks and lock waits are nothing here.
 */
final class SqliteSql implements DialectSql {

  private static final String INSERT = "INSERT INTO outbox_message " + PublishStatements.COLUMNS
      + " SELECT (SELECT last_value FROM outbox_sequence WHERE name = 'outbox_message_seq'), r.outbox,"
      + " MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ? FROM outbox_rules r WHERE r.outbox = ?"
      + " RETURNING id, partition_no";

  @Override
  public String insertMessage(boolean lockGroup) {
    return INSERT;
  }

  /** Draws the id (taking the write lock until the transaction ends); the insert reads it back. */
  @Override
  public void beforeInsert(Connection connection, NewMessage message, boolean lockGroup) throws SQLException {
    SingleWriter.draw(connection, "outbox_message_seq", 1, 0);
  }

  @Override
  public void lockGroup(Connection connection, String outbox, String groupKey, LocalDateTime now) {
    // The single writer already serialises every publisher.
  }

  @Override
  public void boundLockWait(Connection connection, Duration wait) {
    // No row locks: the write lock waits busy_timeout, a setting of the connection.
  }

  @Override
  public String lockWaitPrefix(Duration wait) {
    return "";
  }

  @Override
  public String readTime(String column) {
    return column;
  }

  @Override
  public List<Long> nextMessageIds(Connection connection, int count) throws SQLException {
    List<Long> ids = new ArrayList<>(count);
    if (count > 0) {
      long last = SingleWriter.draw(connection, "outbox_message_seq", count, 0);
      for (long id = last - count + 1; id <= last; id++) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** The rows of the counters table that stand in for sequences; without the table there is none. */
  @Override
  public Set<String> sequenceNames(Connection connection, String catalog, String schema) throws SQLException {
    Set<String> found = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    try (ResultSet tables = connection.getMetaData().getTables(catalog, schema, SchemaManager.SQLITE_COUNTERS, null)) {
      if (!tables.next()) {
        return found;
      }
    }
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT name FROM " + SchemaManager.SQLITE_COUNTERS)) {
      while (rows.next()) {
        found.add(rows.getString(1));
      }
    }
    return found;
  }

  @Override
  public SortedMap<Integer, PreparedTransaction> preparedHolders(Connection connection, String outbox, int from,
      int to) {
    return new TreeMap<>();
  }
}
