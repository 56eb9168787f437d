package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.PreparedTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/** {@link DialectSql} of MariaDB: a lock row per group, lock waits bounded per statement, times read as text. */
final class MariaDbSql implements DialectSql {

  private static final String INSERT = "INSERT INTO outbox_message " + PublishStatements.COLUMNS
      + " SELECT NEXT VALUE FOR outbox_message_seq, r.outbox, MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?"
      + " FROM outbox_rules r WHERE r.outbox = ? LOCK IN SHARE MODE RETURNING id, partition_no";

  @Override
  public String insertMessage(boolean lockGroup) {
    return INSERT;
  }

  /** Inserts the group's row, or takes the existing one exclusively (a record lock on the primary key, no gap lock). */
  @Override
  public void lockGroup(Connection connection, String outbox, String groupKey, LocalDateTime now)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("INSERT INTO outbox_group_lock (outbox, group_key,"
        + " locked_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE locked_at = VALUES(locked_at)")) {
      statement.setString(1, outbox);
      statement.setString(2, groupKey);
      Sql.setUtc(statement, 3, now);
      statement.executeUpdate();
    }
  }

  @Override
  public void boundLockWait(Connection connection, Duration wait) {
    // Per statement (lockWaitPrefix): MariaDB's setting is the session's, which would stay with the pooled connection.
  }

  @Override
  public String lockWaitPrefix(Duration wait) {
    return "SET STATEMENT innodb_lock_wait_timeout = " + Math.max(1, wait.toSeconds()) + " FOR ";
  }

  /** As text: see {@link Sql#getUtc}. */
  @Override
  public String readTime(String column) {
    return "CAST(" + column + " AS CHAR)";
  }

  @Override
  public List<Long> nextMessageIds(Connection connection, int count) throws SQLException {
    return H2Sql.nextValues(connection, "SELECT NEXT VALUE FOR outbox_message_seq", count);
  }

  @Override
  public Set<String> sequenceNames(Connection connection, String catalog, String schema) throws SQLException {
    return DialectSql.sequencesFromMetadata(connection, catalog, schema);
  }

  @Override
  public SortedMap<Integer, PreparedTransaction> preparedHolders(Connection connection, String outbox, int from,
      int to) {
    return new TreeMap<>();
  }
}
