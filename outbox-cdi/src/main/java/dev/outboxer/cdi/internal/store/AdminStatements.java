package dev.outboxer.cdi.internal.store;

import dev.outboxer.BlockedGroup;
import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxCounts;
import dev.outboxer.OutboxException;
import dev.outboxer.PartitionStatus;
import dev.outboxer.cdi.internal.cdi.NodeIdentity;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.jdbc.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The statements behind {@code OutboxAdmin} and the backlog gauges. All run in the caller's transaction. */
@ApplicationScoped
public class AdminStatements {

  /** Ids bound in one statement: well below the 65,535 parameters PostgreSQL and MariaDB allow. */
  static final int IDS_PER_STATEMENT = 10_000;

  /**
   * The most serialize-writes group locks one revive takes in one transaction. The database keeps
   * each until the transaction ends, and on PostgreSQL each advisory lock takes a slot of the
   * server's shared lock table ({@code max_locks_per_transaction} times {@code max_connections +
   * max_prepared_transactions} slots for all sessions together: 6,400 with the defaults). A revive
   * of the dead messages of tens of thousands of groups in one transaction ran out of it ("out of
   * shared memory"), and so did every other session of the server that asked for a lock meanwhile.
   */
  public static final int MAX_GROUP_LOCKS = 1_000;


  private static final String DEAD_COLUMNS = "id, outbox, group_key, message_type, attempts, last_error, %s, %s";

  @Inject Database database;
  @Inject DeadMessageStatements deadMessages;

  /** A time column as this database's {@link DialectSql#readTime} reads it. */
  private String time(String column) {
    return database.dialect().sql().readTime(column);
  }

  public OutboxCounts counts(Connection connection, String outbox, LocalDateTime now) throws SQLException {
    long pending = 0;
    long retrying = 0;
    long dead = 0;
    Duration oldestPendingAge = Duration.ZERO;
    // A delayed message lags from its time, not from its publish: before it, it is not late at all (a time in the
    // future comes out as a negative age, zero below). Once it has failed, its retry time says nothing of its lag.
    try (PreparedStatement statement = connection.prepareStatement("SELECT status, COUNT(*),"
        + " SUM(CASE WHEN attempts > 0 THEN 1 ELSE 0 END), " + time("MIN(CASE WHEN attempts = 0 AND next_attempt_at"
        + " IS NOT NULL THEN next_attempt_at ELSE created_at END)") + " FROM outbox_message WHERE outbox = ?"
        + " GROUP BY status")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          long count = rows.getLong(2);
          if (MessageStatus.PENDING.name().equals(rows.getString(1))) {
            pending = count;
            retrying = rows.getLong(3);
            LocalDateTime oldest = Sql.getUtc(rows, 4);
            if (oldest != null) {
              Duration age = Duration.between(oldest, now);
              oldestPendingAge = age.isNegative() ? Duration.ZERO : age;
            }
          } else {
            dead = count;
          }
        }
      }
    }
    return new OutboxCounts(pending, retrying, dead, oldestPendingAge);
  }

  public List<PartitionStatus> partitions(Connection connection, String outbox, int partitionCount)
      throws SQLException {
    Map<Integer, long[]> backlog = new HashMap<>();
    try (PreparedStatement statement = connection.prepareStatement("SELECT partition_no, COUNT(*),"
        + " SUM(CASE WHEN attempts > 0 AND next_attempt_at IS NOT NULL THEN 1 ELSE 0 END) FROM outbox_message"
        + " WHERE outbox = ? AND status = 'PENDING' GROUP BY partition_no")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          backlog.put(rows.getInt(1), new long[] {rows.getLong(2), rows.getLong(3)});
        }
      }
    }
    Map<Integer, dev.outboxer.PreparedTransaction> held =
        database.dialect().sql().preparedHolders(connection, outbox, 0, partitionCount);
    List<PartitionStatus> partitions = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement("SELECT partition_no, owner_node, fencing_token, "
        + time("claimed_at") + " FROM outbox_partition WHERE outbox = ? AND partition_no < ? ORDER BY partition_no")) {
      statement.setString(1, outbox);
      statement.setInt(2, partitionCount);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          long[] counts = backlog.getOrDefault(rows.getInt(1), new long[2]);
          partitions.add(new PartitionStatus(rows.getInt(1), rows.getString(2), rows.getLong(3),
              TimeSource.fromUtc(Sql.getUtc(rows, 4)), counts[0], counts[1], held.get(rows.getInt(1))));
        }
      }
    }
    return partitions;
  }

  /** The oldest transaction open on another session of the database (PostgreSQL only; empty elsewhere). */
  public java.util.Optional<dev.outboxer.OpenTransaction> oldestOpenTransaction(Connection connection)
      throws SQLException {
    return database.dialect() == Dialect.POSTGRESQL ? OpenTransactions.oldest(connection) : java.util.Optional.empty();
  }

  /** The prepared transactions holding partitions below {@code partitionCount}, by partition (PostgreSQL only). */
  public java.util.SortedMap<Integer, dev.outboxer.PreparedTransaction> preparedTransactions(Connection connection,
      String outbox, int partitionCount) throws SQLException {
    return database.dialect().sql().preparedHolders(connection, outbox, 0, partitionCount);
  }

  public List<BlockedGroup> blockedGroups(Connection connection, String outbox, int limit, LocalDateTime now)
      throws SQLException {
    List<BlockedGroup> blocked = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement("SELECT group_key, id, partition_no, attempts, "
        + time("next_attempt_at") + ", last_error FROM outbox_message WHERE outbox = ? AND status = 'PENDING'"
        + " AND next_attempt_at > ? ORDER BY next_attempt_at, id LIMIT ?")) {
      statement.setString(1, outbox);
      Sql.setUtc(statement, 2, now);
      statement.setInt(3, limit);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          blocked.add(new BlockedGroup(rows.getString(1), rows.getLong(2), rows.getInt(3), rows.getInt(4),
              TimeSource.fromUtc(Sql.getUtc(rows, 5)), rows.getString(6)));
        }
      }
    }
    return blocked;
  }

  public List<DeadMessage> dead(Connection connection, String outbox, String groupKey, long afterId, int limit)
      throws SQLException {
    List<DeadMessage> dead = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement("SELECT " + String.format(DEAD_COLUMNS,
        time("created_at"), time("last_attempt_at")) + " FROM outbox_message"
        + " WHERE outbox = ? AND status = 'DEAD' AND id > ?" + (groupKey == null ? "" : " AND group_key = ?")
        + " ORDER BY id LIMIT ?")) {
      int index = 1;
      statement.setString(index++, outbox);
      statement.setLong(index++, afterId);
      if (groupKey != null) {
        statement.setString(index++, groupKey);
      }
      statement.setInt(index, limit);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          dead.add(new DeadMessage(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
              rows.getInt(5), rows.getString(6), TimeSource.fromUtc(Sql.getUtc(rows, 7)),
              TimeSource.fromUtc(Sql.getUtc(rows, 8))));
        }
      }
    }
    return dead;
  }

  /**
   * Removes pending or dead messages, after waiting for any batch of their partitions to end (at
   * most {@code lockWait}). The partitions' owner is set to {@link NodeIdentity#ADMIN_INSTANCE}, so
   * that their workers read them from the start again.
   *
   * @return how many were removed
   * @throws OutboxException if a partition stayed busy for longer than {@code lockWait}
   */
  public int discard(Connection connection, String outbox, List<Long> ids, Duration lockWait) throws SQLException {
    if (ids.isEmpty()) {
      return 0;
    }
    if (database.dialect().singleWriter()) {
      // Waits for a running batch (which holds the database) up to busy_timeout, and keeps the next one out.
      takeWriteLock(connection, outbox, "discarded");
    }
    for (int attempt = 0; ; attempt++) {
      Map<Long, Integer> partitionOf = partitionsOf(connection, outbox, ids);
      if (partitionOf.isEmpty()) {
        return 0;
      }
      TreeSet<Integer> partitions = new TreeSet<>(partitionOf.values());
      lockPartitions(connection, outbox, partitions, lockWait);
      // By primary keys, a statement per partition: no range, so no gap lock that would hold up publishers (MariaDB).
      Map<Integer, List<Long>> idsOf = new TreeMap<>();
      partitionOf.forEach((id, partition) -> idsOf.computeIfAbsent(partition, key -> new ArrayList<>()).add(id));
      int removed = 0;
      for (Map.Entry<Integer, List<Long>> partition : idsOf.entrySet()) {
        for (List<Long> slice : slices(partition.getValue())) {
          removed += database.dialect().sql().deleteMessages(connection, outbox, partition.getKey(), false, slice);
        }
      }
      if (removed == partitionOf.size() || attempt == 2 || !anyMoved(connection, outbox, partitionOf)) {
        return removed;
      }
      // A change of the partition count moved some of them before their partition was locked: once more.
    }
  }

  private static boolean anyMoved(Connection connection, String outbox, Map<Long, Integer> partitionOf)
      throws SQLException {
    Map<Long, Integer> now = partitionsOf(connection, outbox, new ArrayList<>(partitionOf.keySet()));
    return now.entrySet().stream().anyMatch(row -> !row.getValue().equals(partitionOf.get(row.getKey())));
  }

  /**
   * The partition of each of the ids that is a message of the outbox. The ids go to the database a
   * slice at a time: a statement binds at most 65,535 parameters (PostgreSQL, MariaDB), and an
   * operator may well pass more ids than that.
   */
  private static Map<Long, Integer> partitionsOf(Connection connection, String outbox, List<Long> ids)
      throws SQLException {
    Map<Long, Integer> partitionOf = new HashMap<>();
    for (List<Long> slice : slices(ids)) {
      try (PreparedStatement statement = connection.prepareStatement("SELECT id, partition_no FROM outbox_message"
          + " WHERE outbox = ? AND id IN (" + Sql.placeholders(slice.size()) + ")")) {
        statement.setString(1, outbox);
        Sql.setLongs(statement, 2, slice);
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            partitionOf.put(rows.getLong(1), rows.getInt(2));
          }
        }
      }
    }
    return partitionOf;
  }

  /** The ids in ascending order (rows are locked in id order), cut into slices a statement can bind. */
  static List<List<Long>> slices(List<Long> ids) {
    List<Long> sorted = new ArrayList<>(new TreeSet<>(ids));
    List<List<Long>> slices = new ArrayList<>();
    for (int from = 0; from < sorted.size(); from += IDS_PER_STATEMENT) {
      slices.add(sorted.subList(from, Math.min(sorted.size(), from + IDS_PER_STATEMENT)));
    }
    return slices;
  }

  /** Locks partition rows in partition order (no deadlock between two admin calls), waiting at most lockWait. */
  private void lockPartitions(Connection connection, String outbox, TreeSet<Integer> partitions, Duration lockWait)
      throws SQLException {
    Dialect dialect = database.dialect();
    dialect.sql().boundLockWait(connection, lockWait);
    String prefix = dialect.sql().lockWaitPrefix(lockWait);
    for (int partition : partitions) {
      // SQLite: the write lock the caller took already keeps every batch out.
      if (!dialect.singleWriter()) {
        lockPartitionRow(connection, prefix, outbox, partition, lockWait);
      }
      try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_partition SET owner_instance = ?"
          + " WHERE outbox = ? AND partition_no = ?")) {
        statement.setString(1, NodeIdentity.ADMIN_INSTANCE);
        statement.setString(2, outbox);
        statement.setInt(3, partition);
        statement.executeUpdate();
      }
    }
  }

  private static void lockPartitionRow(Connection connection, String prefix, String outbox, int partition,
      Duration lockWait) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(prefix + "SELECT partition_no FROM"
        + " outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      statement.executeQuery().close();
    } catch (SQLException e) {
      if (isLockTimeout(e)) {
        throw new OutboxException("Outbox '" + outbox + "': partition " + partition + " was busy relaying a batch for"
            + " longer than " + lockWait.toSeconds() + "s, so nothing was discarded (the message may be in that"
            + " batch). Try again.", e);
      }
      throw e;
    }
  }

  /**
   * SQLite: the database's write lock, for the rest of the transaction. A batch holds it while it
   * runs; waiting longer than the connection's busy_timeout fails like a lock timeout elsewhere.
   */
  static void takeWriteLock(Connection connection, String outbox, String operation) throws SQLException {
    try {
      SingleWriter.takeWriteLock(connection);
    } catch (SQLException e) {
      if (SingleWriter.isBusy(e)) {
        throw new OutboxException("Outbox '" + outbox + "': another transaction (a batch relaying, or a publisher) held"
            + " the SQLite database for longer than the connection's busy_timeout, so nothing was " + operation
            + ". Try again, or raise busy_timeout.", e);
      }
      throw e;
    }
  }

  private static boolean isLockTimeout(SQLException e) {
    return "55P03".equals(e.getSQLState()) || e.getErrorCode() == 1205 || "HYT00".equals(e.getSQLState())
        || e.getErrorCode() == 50200;
  }

  /**
   * Removes the dead messages of one group. The ids are found by a plain (consistent, non-locking)
   * read and each row is then deleted by its primary key, if it is still dead: a locking read or a
   * {@code DELETE} by group would lock a range on MariaDB (under REPEATABLE READ every row it scans
   * and the gaps between them, up to the end of the table), and hold up every publish until the
   * admin transaction ends.
   *
   * @return how many were removed
   */
  public int discardDead(Connection connection, String outbox, String groupKey) throws SQLException {
    if (database.dialect().singleWriter()) {
      // Write lock first: a read and then a write could fail to upgrade (SQLITE_BUSY) if a publisher wrote meanwhile.
      takeWriteLock(connection, outbox, "discarded");
    }
    List<Long> dead = new ArrayList<>(deadOf(connection, outbox, null, groupKey).keySet());
    int removed = 0;
    for (List<Long> slice : slices(dead)) {
      // Fewer than the slice if a concurrent admin call revived or removed some meanwhile.
      removed += deadMessages.discard(connection, outbox, slice);
    }
    return removed;
  }

  /**
   * Makes dead messages pending again as new messages: each gets a new id from the message sequence,
   * in the order of the old ids, so it comes after everything its group published meanwhile (which
   * may already have been relayed) and a consumer that keeps the last id per group, or a broker that
   * drops repeated ids (SQS FIFO), takes it for what it is, a message it has not seen. The old id
   * is gone. It is a fresh message (no retry time; workers read it with the other fresh
   * messages, in id order) and its attempts start again at zero.
   *
   * <p>With {@code serializeWrites}, the write lock of each group concerned is taken first (in
   * group-key order, so that two revives never deadlock over them), before any id is drawn, as a
   * publish of the group does: a publish that drew its id but has not committed yet is waited for,
   * so the group's ids still increase in commit order, and a worker never relays the revived
   * message ahead of it.
   *
   * <p>No range is locked: the dead messages are found by a plain (consistent) read, and each is
   * then updated by its primary key if it is still dead (a concurrent admin call may have revived or
   * removed it meanwhile; it is then left out of the result). See {@link #discardDead}.
   *
   * @param ids the ids to revive, or null for all (of the group, if given)
   * @param serializeWrites whether the outbox is configured with {@code serialize-writes}
   * @return the revived messages as old id to new id, in the order of the old ids
   */
  public Map<Long, Long> revive(Connection connection, String outbox, List<Long> ids, String groupKey,
      LocalDateTime now, boolean serializeWrites) throws SQLException {
    if (ids != null && ids.isEmpty()) {
      return Map.of();
    }
    Dialect dialect = database.dialect();
    if (dialect.singleWriter()) {
      // Also keeps every publisher out until the transaction ends: no group lock is needed.
      takeWriteLock(connection, outbox, "revived");
    }
    Map<Long, String> dead = new TreeMap<>();
    if (ids == null) {
      dead.putAll(deadOf(connection, outbox, null, groupKey));
    } else {
      for (List<Long> slice : slices(ids)) {
        dead.putAll(deadOf(connection, outbox, slice, groupKey));
      }
    }
    if (dead.isEmpty()) {
      return Map.of();
    }
    if (serializeWrites && !dialect.singleWriter()) {
      TreeSet<String> groups = new TreeSet<>();
      dead.values().stream().filter(java.util.Objects::nonNull).forEach(groups::add);
      if (groups.size() > MAX_GROUP_LOCKS) {
        throw new OutboxException("Outbox '" + outbox + "': the revive concerns " + dead.size() + " dead message(s) of "
            + groups.size() + " groups; with serialize-writes it takes the write lock of each group until its"
            + " transaction ends, and at most " + MAX_GROUP_LOCKS + " in one transaction (on PostgreSQL each lock takes"
            + " a slot of the server's lock table, which all sessions share). Nothing was revived. Call retryDead"
            + " outside a transaction (it then revives them " + MAX_GROUP_LOCKS + " groups a transaction), or"
            + " revive fewer groups at once (by ids, or with retryDeadGroup).");
      }
      dialect.sql().lockGroups(connection, outbox, groups, now);
    }
    Map<Long, Long> revived = new LinkedHashMap<>();
    List<DeadMessageStatements.DeadRow> rows = new ArrayList<>();
    dead.forEach((id, group) -> rows.add(new DeadMessageStatements.DeadRow(id, group)));
    for (int from = 0; from < rows.size(); from += IDS_PER_STATEMENT) {
      // The group locks are taken above, all of them before the first id is drawn.
      revived.putAll(deadMessages.revive(connection, outbox, rows.subList(from,
          Math.min(rows.size(), from + IDS_PER_STATEMENT)), now, false));
    }
    return revived;
  }

  /**
   * The dead messages of the outbox (of the ids given, of the group given) as id to group key, by a
   * plain read: no row or range is locked.
   */
  private static Map<Long, String> deadOf(Connection connection, String outbox, List<Long> ids, String groupKey)
      throws SQLException {
    StringBuilder select = new StringBuilder("SELECT id, group_key FROM outbox_message WHERE outbox = ?"
        + " AND status = 'DEAD'");
    if (ids != null) {
      select.append(" AND id IN (").append(Sql.placeholders(ids.size())).append(')');
    }
    if (groupKey != null) {
      select.append(" AND group_key = ?");
    }
    Map<Long, String> dead = new TreeMap<>();
    try (PreparedStatement statement = connection.prepareStatement(select.toString())) {
      statement.setString(1, outbox);
      int next = 2;
      if (ids != null) {
        next = Sql.setLongs(statement, next, ids);
      }
      if (groupKey != null) {
        statement.setString(next, groupKey);
      }
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          dead.put(rows.getLong(1), rows.getString(2));
        }
      }
    }
    return dead;
  }

  /** Pending messages per partition, for tests and operators. */
  public Map<Integer, Long> pendingByPartition(Connection connection, String outbox) throws SQLException {
    Map<Integer, Long> pending = new TreeMap<>();
    try (PreparedStatement statement = connection.prepareStatement("SELECT partition_no, COUNT(*) FROM outbox_message"
        + " WHERE outbox = ? AND status = 'PENDING' GROUP BY partition_no")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          pending.put(rows.getInt(1), rows.getLong(2));
        }
      }
    }
    return pending;
  }
}
