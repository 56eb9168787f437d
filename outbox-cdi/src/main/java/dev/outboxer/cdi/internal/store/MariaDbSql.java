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

  /** One batch of the lock rows' upserts, in group-key order. */
  @Override
  public void lockGroups(Connection connection, String outbox, java.util.SortedSet<String> groupKeys,
      LocalDateTime now) throws SQLException {
    if (groupKeys.isEmpty()) {
      return;
    }
    try (PreparedStatement statement = connection.prepareStatement("INSERT INTO outbox_group_lock (outbox, group_key,"
        + " locked_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE locked_at = VALUES(locked_at)")) {
      for (String groupKey : groupKeys) {
        statement.setString(1, outbox);
        statement.setString(2, groupKey);
        Sql.setUtc(statement, 3, now);
        statement.addBatch();
      }
      statement.executeBatch();
    }
  }

  /**
   * A batch of deletes by primary key (the driver sends it in one go): a {@code DELETE} with an id
   * list was seen to hold up a publish of another group until the transaction ended (the
   * {@code AdminLockingContractTest}), as a range scan's next-key locks do; a delete by primary key
   * locks its row only. Where the driver does not tell each entry's count ({@link
   * java.sql.Statement#SUCCESS_NO_INFO}, with {@code useBulkStmts=true}), the ids no longer there
   * count as removed: the ids come from a read of the messages just before, in the same
   * transaction, so that is exact unless a concurrent admin call or a batch removed or revived one of
   * them meanwhile.
   */
  @Override
  public int deleteMessages(Connection connection, String outbox, Integer partition, boolean deadOnly,
      List<Long> ids) throws SQLException {
    int[] counts;
    try (PreparedStatement statement = connection.prepareStatement("DELETE FROM outbox_message WHERE id = ?"
        + " AND outbox = ?" + (partition == null ? "" : " AND partition_no = " + partition)
        + (deadOnly ? " AND status = 'DEAD'" : ""))) {
      for (long id : ids) {
        statement.setLong(1, id);
        statement.setString(2, outbox);
        statement.addBatch();
      }
      counts = statement.executeBatch();
    }
    if (counts.length == ids.size() && java.util.Arrays.stream(counts).allMatch(count -> count >= 0)) {
      return java.util.Arrays.stream(counts).sum();
    }
    try (PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM outbox_message"
        + " WHERE id IN (" + Sql.placeholders(ids.size()) + ")")) {
      Sql.setLongs(statement, 1, ids);
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        rows.next();
        return ids.size() - rows.getInt(1);
      }
    }
  }

  /**
   * {@code GET_LOCK(name, 0)}: a lock of the session, not of the transaction, so {@link
   * #releaseRetentionLock} gives it back before the connection goes back to the pool (and the
   * server drops it with a session that dies). The name is at most 64 characters: the outbox's hash
   * and the database's ({@link #RETENTION_LOCK}): a lock name is the server's, not a database's, and
   * an outbox of the same name in another database of the server (another application, a staging
   * copy) must not lock this one's retention out.
   */
  @Override
  public boolean tryRetentionLock(Connection connection, String outbox) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT GET_LOCK(" + RETENTION_LOCK + ", 0)")) {
      statement.setString(1, retentionLockName(outbox));
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1) == 1;
      }
    }
  }

  @Override
  public void releaseRetentionLock(Connection connection, String outbox) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT RELEASE_LOCK(" + RETENTION_LOCK + ")")) {
      statement.setString(1, retentionLockName(outbox));
      statement.executeQuery().close();
    }
  }

  /**
   * The retention lock's name: the outbox's part (a parameter) and the database's, 16 hex digits of
   * each (at most 52 characters of the 64 allowed).
   */
  private static final String RETENTION_LOCK = "CONCAT(?, '.', LEFT(MD5(COALESCE(DATABASE(), '')), 16))";

  private static String retentionLockName(String outbox) {
    return "outboxer.retention." + Long.toHexString(GroupHash.hash64(outbox));
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
    if (count == 0) {
      return List.of();
    }
    // One round trip: a row per id from the Sequence engine's virtual table seq_1_to_<n> (built into MariaDB).
    List<Long> ids = new java.util.ArrayList<>(count);
    try (PreparedStatement statement = connection.prepareStatement("SELECT NEXT VALUE FOR outbox_message_seq"
        + " FROM seq_1_to_" + count)) {
      try (java.sql.ResultSet rows = statement.executeQuery()) {
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
      int to) {
    return new TreeMap<>();
  }
}
