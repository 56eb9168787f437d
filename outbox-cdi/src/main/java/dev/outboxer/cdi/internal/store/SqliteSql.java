package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.store.PublishStatements.NewMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

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

  @Override
  public boolean groupLockInInsert() {
    return false;
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
}
