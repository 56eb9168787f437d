package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.store.PublishStatements.NewMessage;
import dev.outboxer.PreparedTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;

/** {@link DialectSql} of PostgreSQL: advisory locks for groups, the lock wait set for the transaction. */
final class PostgresSql implements DialectSql {

  private static final String INSERT = "INSERT INTO outbox_message " + PublishStatements.COLUMNS
      + " SELECT nextval('outbox_message_seq'), r.outbox, MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?"
      + " FROM outbox_rules r WHERE r.outbox = ?"
      // A one-time filter, evaluated before the id is drawn: the transaction has an xid from here on, so every id
      // drawn belongs to a transaction that is visible as running (see PartitionCursor).
      + " AND txid_current() IS NOT NULL";
  // serialize-writes: the group's lock comes before the id, so ids of a group increase in commit order.
  private static final String GROUP_LOCK = " AND pg_advisory_xact_lock(?) IS NOT NULL";
  private static final String TAIL = " FOR KEY SHARE OF r RETURNING id, partition_no";

  @Override
  public String insertMessage(boolean lockGroup) {
    return INSERT + (lockGroup ? GROUP_LOCK : "") + TAIL;
  }

  @Override
  public boolean groupLockInInsert() {
    return true;
  }

  @Override
  public void beforeInsert(Connection connection, NewMessage message, boolean lockGroup) {
    // The insert does it all.
  }

  @Override
  public void lockGroup(Connection connection, String outbox, String groupKey, LocalDateTime now)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      statement.setLong(1, GroupHash.lockKey(outbox, groupKey));
      statement.executeQuery().close();
    }
  }

  @Override
  public void boundLockWait(Connection connection, Duration wait) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
      statement.setString(1, wait.toMillis() + "ms");
      statement.execute();
    }
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
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT nextval('outbox_message_seq') FROM generate_series(1, ?)")) {
      statement.setInt(1, count);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          ids.add(rows.getLong(1));
        }
      }
    }
    ids.sort(null);
    return ids;
  }

  @Override
  public Set<String> sequenceNames(Connection connection, String catalog, String schema) throws SQLException {
    return DialectSql.sequencesFromMetadata(connection, catalog, schema);
  }

  @Override
  public SortedMap<Integer, PreparedTransaction> preparedHolders(Connection connection, String outbox, int from,
      int to) throws SQLException {
    return PreparedHolders.of(connection, outbox, from, to);
  }
}
