package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.store.PublishStatements.NewMessage;
import dev.outboxer.PreparedTransaction;
import dev.outboxer.cdi.internal.jdbc.Sql;
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
  /** The first key of the retention locks ("OBXR"); the second is the outbox's hash. */
  private static final int RETENTION_LOCK_CLASS = 0x4F425852;

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

  /**
   * One statement: the advisory locks in the order given (group-key order, as a publish and every
   * other revive take them), by the array's ordinality.
   */
  @Override
  public void lockGroups(Connection connection, String outbox, java.util.SortedSet<String> groupKeys,
      LocalDateTime now) throws SQLException {
    if (groupKeys.isEmpty()) {
      return;
    }
    Long[] keys = groupKeys.stream().map(groupKey -> GroupHash.lockKey(outbox, groupKey)).toArray(Long[]::new);
    try (PreparedStatement statement = connection.prepareStatement("SELECT COUNT(pg_advisory_xact_lock(k.key))"
        + " FROM (SELECT key FROM unnest(?::bigint[]) WITH ORDINALITY AS k(key, n) ORDER BY n) AS k")) {
      statement.setArray(1, connection.createArrayOf("bigint", keys));
      statement.executeQuery().close();
    }
  }

  /** One statement for all of them: the old and new ids as two arrays, the revived ones' new ids returned. */
  @Override
  public java.util.Map<Long, Long> reviveDead(Connection connection, String outbox,
      java.util.Map<Long, Long> oldToNew) throws SQLException {
    java.util.Set<Long> revivedNewIds = new java.util.HashSet<>();
    // The rows by primary key (= ANY: an index scan whatever the statistics say; a plain join with the unnested arrays
    // was planned as a scan of the whole table per chunk without fresh statistics), joined with the arrays for the
    // new ids (a hash of one chunk's ids: no search per row).
    try (PreparedStatement update = connection.prepareStatement("UPDATE outbox_message AS m SET id = v.new_id,"
        + " status = 'PENDING', attempts = 0, next_attempt_at = NULL, last_error = NULL"
        + " FROM unnest(?::bigint[], ?::bigint[]) AS v(old_id, new_id)"
        + " WHERE m.id = ANY(?::bigint[]) AND m.id = v.old_id AND m.outbox = ? AND m.status = 'DEAD'"
        + " RETURNING m.id")) {
      java.sql.Array oldIds = connection.createArrayOf("bigint", oldToNew.keySet().toArray(Long[]::new));
      update.setArray(1, oldIds);
      update.setArray(2, connection.createArrayOf("bigint", oldToNew.values().toArray(Long[]::new)));
      update.setArray(3, oldIds);
      update.setString(4, outbox);
      try (ResultSet rows = update.executeQuery()) {
        while (rows.next()) {
          revivedNewIds.add(rows.getLong(1));
        }
      }
    }
    java.util.Map<Long, Long> inOrder = new java.util.LinkedHashMap<>();
    oldToNew.forEach((oldId, newId) -> {
      if (revivedNewIds.contains(newId)) {
        inOrder.put(oldId, newId);
      }
    });
    return inOrder;
  }

  /**
   * {@code pg_try_advisory_xact_lock} with two int keys: a key space apart from the one-bigint keys
   * of the groups' serialize-writes locks, so the two never contend. Released when the transaction ends.
   */
  @Override
  public boolean tryRetentionLock(Connection connection, String outbox) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_xact_lock(?, ?)")) {
      statement.setInt(1, RETENTION_LOCK_CLASS);
      statement.setInt(2, (int) GroupHash.hash64(outbox));
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getBoolean(1);
      }
    }
  }

  @Override
  public void releaseRetentionLock(Connection connection, String outbox) {
    // The transaction's end releases it.
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
    // txid_current() gives the transaction an id in the statement that draws the message ids: a transaction holding
    // ids it has not written yet must be listed by the cursor's probe of running transactions while it waits
    // between statements, and the probe leaves out the ones without a transaction id (PostgresBatchSql.PROBE_POSTGRESQL).
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT nextval('outbox_message_seq'), txid_current() FROM generate_series(1, ?)")) {
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
