package dev.outboxer.cdi.internal.store;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.cdi.internal.store.BatchStatements.Claim;
import dev.outboxer.cdi.internal.store.BatchStatements.ClaimedRead;
import dev.outboxer.cdi.internal.store.BatchStatements.Failure;
import dev.outboxer.cdi.internal.store.BatchStatements.Read;
import dev.outboxer.cdi.internal.store.BatchStatements.ReadRequest;
import dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage;
import dev.outboxer.cdi.internal.store.BatchStatements.Waiting;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The batch statements of MariaDB, H2 and SQLite: a statement per step, each by primary key or by
 * the partition's own index range (no gap locks on MariaDB). The databases differ only in how the
 * partition row is locked and its fencing token drawn ({@link #lockPartition}), and in how times are
 * read ({@link DialectSql#readTime}).
 */
abstract class RowByRowBatchSql implements BatchSql {

  /**
   * What locking the partition found: the new fencing token, the instance that held it last and,
   * where the same statement read them, the outbox's rules in force and whether any message of the
   * partition waits for a retry or its time (else null: read separately).
   */
  record LockedPartition(long fencingToken, String previousInstance, Rules rules, Boolean anyWaiting) {

    LockedPartition(long fencingToken, String previousInstance) {
      this(fencingToken, previousInstance, null, null);
    }
  }

  /** The outbox's partition count and layout version, as a claim reports them. */
  record Rules(int partitionCount, int layoutVersion) {}

  /**
   * MariaDB, H2 and SQLite: the same scan in a statement of its own, the held-back rows left out by
   * {@link HoldBack} (the correlated form below only for many blocked groups).
   */
  private static final String SCAN_HEAD = "SELECT %s FROM outbox_message m"
      + " WHERE m.outbox = ? AND m.partition_no = ? AND m.status = 'PENDING' AND m.id >= ?"
      + " AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= ?)";
  private static final String SCAN_GROUP = " AND NOT EXISTS (SELECT 1 FROM outbox_message w WHERE w.outbox = m.outbox"
      + " AND w.partition_no = m.partition_no AND w.next_attempt_at > ? AND w.group_key = m.group_key AND w.id < m.id)";
  private static final String SCAN_TAIL = " ORDER BY m.id LIMIT ?";
  /** The scan with the waiting list: the column that tells a scanned row from a waiting one, and its values. */
  private static final int ROW_KIND = 10;
  private static final int SCANNED = 1;
  private static final int WAITING = 2;
  /** The partition's messages that wait for a retry or for their time. */
  private static final String WAITING_WHERE = " WHERE outbox = ? AND partition_no = ? AND next_attempt_at IS NOT NULL"
      + " AND status = 'PENDING'";

  private final DialectSql dialect;

  RowByRowBatchSql(DialectSql dialect) {
    this.dialect = dialect;
  }

  /**
   * Locks the partition's row for this transaction (or skips it if another transaction holds it)
   * and draws a new fencing token.
   *
   * @return the token and the previous owner, or null if the partition is held elsewhere or gone
   */
  abstract LockedPartition lockPartition(Connection connection, String outbox, int partition) throws SQLException;

  @Override
  public Claim claim(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, boolean probeRunning) throws SQLException {
    return claim(connection, outbox, partition, node, instance, now).claim();
  }

  /** The claim and what locking the partition found (null if it was not claimed). */
  private record Claimed(Claim claim, LockedPartition locked) {}

  private Claimed claim(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now) throws SQLException {
    LockedPartition locked = lockPartition(connection, outbox, partition);
    if (locked == null) {
      Rules rules = rules(connection, outbox);
      return new Claimed(new Claim(false, 0, null, rules.partitionCount(), rules.layoutVersion(), 0, 0, null), null);
    }
    recordOwner(connection, outbox, partition, node, instance, now, locked.fencingToken());
    Rules rules = locked.rules() != null ? locked.rules() : rules(connection, outbox);
    return new Claimed(new Claim(true, locked.fencingToken(), locked.previousInstance(), rules.partitionCount(),
        rules.layoutVersion(), 0, 0, null), locked);
  }

  /** The claim, then the read if it took the partition: three round trips or more. */
  @Override
  public ClaimedRead claimAndRead(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, ReadRequest request) throws SQLException {
    Claimed claimed = claim(connection, outbox, partition, node, instance, now);
    if (!claimed.claim().claimed()) {
      return new ClaimedRead(claimed.claim(), null);
    }
    boolean nothingWaits = Boolean.FALSE.equals(claimed.locked().anyWaiting());
    return new ClaimedRead(claimed.claim(), read(connection, outbox, partition, request, now, nothingWaits));
  }

  @Override
  public Read read(Connection connection, String outbox, int partition, ReadRequest request, LocalDateTime now)
      throws SQLException {
    return read(connection, outbox, partition, request, now, false);
  }

  /**
   * Reads the partition. With {@code nothingWaits} (the claim's statement found no message waiting
   * for a retry or its time) the waiting list is not read before the scan: the scan then holds
   * nothing back in SQL, and the list read in the scan's own statement holds back whatever a message
   * that began to wait since then holds back (in {@link RelaySelection}).
   */
  private Read read(Connection connection, String outbox, int partition, ReadRequest request, LocalDateTime now,
      boolean nothingWaits) throws SQLException {
    Ordering ordering = request.ordering();
    long scanFrom = request.scanFrom();
    int limit = request.limit();
    String columns = messageColumns();
    List<Waiting> waiting = nothingWaits ? List.of() : waiting(connection, outbox, partition);
    List<StoredMessage> scannedRows = new ArrayList<>();
    HoldBack holdBack = HoldBack.of(ordering, waiting, now);
    // The waiting list again, in the scan's own statement: at READ COMMITTED (H2; MariaDB if the data source sets it)
    // each statement sees what committed before it, so a delayed message published just before a later message of
    // its group can be missing from the list read before the scan while the scan returns that later message. One
    // statement sees one state: the list read with the scan holds back whatever the scan saw (RelaySelection). Not
    // needed in an outbox without ordering, where nothing holds anything back.
    boolean waitingWithScan = ordering != Ordering.NONE;
    String sql = waitingWithScan
        ? withWaiting(String.format(SCAN_HEAD, columns + ", " + SCANNED + " AS row_kind") + holdBack.sql()
            + SCAN_TAIL, "SELECT id, group_key, NULL, NULL, NULL, NULL, 0, " + dialect.readTime("next_attempt_at")
            + ", NULL, " + WAITING + " FROM outbox_message" + WAITING_WHERE)
        : String.format(SCAN_HEAD, columns) + holdBack.sql() + SCAN_TAIL;
    List<Waiting> waitingSeenWithScan = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = 1;
      statement.setString(index++, outbox);
      statement.setInt(index++, partition);
      statement.setLong(index++, scanFrom);
      Sql.setUtc(statement, index++, now);
      index = holdBack.bind(statement, index, now);
      statement.setInt(index++, limit);
      if (waitingWithScan) {
        statement.setString(index++, outbox);
        statement.setInt(index, partition);
      }
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          if (waitingWithScan && rows.getInt(ROW_KIND) == WAITING) {
            waitingSeenWithScan.add(new Waiting(rows.getLong(1), rows.getString(2), Sql.getUtc(rows, 8)));
          } else {
            scannedRows.add(BatchStatements.message(rows, 1));
          }
        }
      }
    }
    if (waitingWithScan) {
      waiting = waitingSeenWithScan;
      // A union keeps no order: the scan's rows in id order again.
      scannedRows.sort(Comparator.comparingLong(StoredMessage::id));
    }
    List<Long> due = new ArrayList<>();
    for (Waiting row : waiting) {
      if (!row.nextAttemptAt().isAfter(now) && row.id() < scanFrom) {
        due.add(row.id());
      }
    }
    // The lowest due ids first, a read's limit of them: see BatchStatements.merged.
    due.sort(null);
    if (due.size() > limit) {
      due = new ArrayList<>(due.subList(0, limit));
    }
    List<StoredMessage> dueRows = new ArrayList<>();
    if (!due.isEmpty()) {
      try (PreparedStatement statement = connection.prepareStatement("SELECT " + columns
          + " FROM outbox_message WHERE id IN (" + Sql.placeholders(due.size()) + ")")) {
        Sql.setLongs(statement, 1, due);
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            dueRows.add(BatchStatements.message(rows, 1));
          }
        }
      }
    }
    return BatchStatements.merged(scannedRows, dueRows, limit, waiting, 0, 0);
  }

  /**
   * The scan and the waiting list in one statement. Here the scan (its {@code ORDER BY} and {@code
   * LIMIT}) in a derived table, the one form SQLite takes (no other member of a compound may have
   * them).
   */
  String withWaiting(String scan, String waiting) {
    return "SELECT * FROM (" + scan + ") scanned UNION ALL " + waiting;
  }

  /** Every message of the partition that waits for a retry or for its time (few), without payload. */
  private List<Waiting> waiting(Connection connection, String outbox, int partition) throws SQLException {
    List<Waiting> waiting = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement("SELECT id, group_key, "
        + dialect.readTime("next_attempt_at") + " FROM outbox_message" + WAITING_WHERE)) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          waiting.add(new Waiting(rows.getLong(1), rows.getString(2), Sql.getUtc(rows, 3)));
        }
      }
    }
    return waiting;
  }

  @Override
  public int finish(Connection connection, Collection<Long> relayed, List<Failure> failures, LocalDateTime now)
      throws SQLException {
    int deleted = relayed.isEmpty() ? 0 : deleteRelayed(connection, relayed);
    if (!failures.isEmpty()) {
      BatchStatements.recordFailuresByPrimaryKey(connection, failures, now);
    }
    return deleted;
  }

  /**
   * Deletes the relayed rows, locking those rows and nothing else. Here one single-row delete per id,
   * sent as one batch: each is an equality on the primary key. An {@code IN} list would be a range
   * scan (or, on a small table, a full scan) on MariaDB, which under REPEATABLE READ also locks the
   * gap after its last row, up to the end of the table: every publish would wait for this batch.
   */
  int deleteRelayed(Connection connection, Collection<Long> relayed) throws SQLException {
    int deleted = 0;
    try (PreparedStatement statement = connection.prepareStatement("DELETE FROM outbox_message WHERE id = ?")) {
      for (long id : relayed) {
        statement.setLong(1, id);
        statement.addBatch();
      }
      for (int count : statement.executeBatch()) {
        deleted += count == java.sql.Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, count);
      }
    }
    return deleted;
  }

  /** The columns of a message as {@link BatchStatements#message} reads them, times as this database reads them. */
  private String messageColumns() {
    return "id, group_key, message_type, content_type, payload, headers, attempts, "
        + dialect.readTime("next_attempt_at") + ", " + dialect.readTime("created_at");
  }

  private static void recordOwner(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long token) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_partition SET fencing_token = ?,"
        + " owner_node = ?, owner_instance = ?, claimed_at = ? WHERE outbox = ? AND partition_no = ?")) {
      statement.setLong(1, token);
      statement.setString(2, node);
      statement.setString(3, instance);
      Sql.setUtc(statement, 4, now);
      statement.setString(5, outbox);
      statement.setInt(6, partition);
      statement.executeUpdate();
    }
  }

  /** The outbox's rules in force. */
  private static Rules rules(Connection connection, String outbox) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT partition_count, layout_version FROM outbox_rules WHERE outbox = ?")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          throw BatchStatements.missingRules(outbox);
        }
        return new Rules(rows.getInt(1), rows.getInt(2));
      }
    }
  }

  /**
   * MariaDB, H2 and SQLite: which rows the scan leaves out because a message that waits for its
   * retry holds them back. The waiting messages were just read (few: one per failing group), so the
   * condition is spelt out with their ids: a correlated {@code NOT EXISTS} over the table made
   * MariaDB look up the whole partition once per scanned row (a 20,000-message partition drained at
   * 267 msg/s). Beyond {@value #HOLD_BACK_GROUPS_INLINE} blocked groups the correlated form is used.
   */
  private record HoldBack(String sql, List<BlockedGroup> groups, long totalFrom, boolean correlated) {

    static HoldBack of(Ordering ordering, List<Waiting> waiting, LocalDateTime now) {
      if (ordering == Ordering.NONE) {
        return new HoldBack("", List.of(), Long.MAX_VALUE, false);
      }
      Map<String, Long> blockedFrom = new TreeMap<>();
      long totalFrom = Long.MAX_VALUE;
      for (Waiting row : waiting) {
        if (row.nextAttemptAt().isAfter(now)) {
          totalFrom = Math.min(totalFrom, row.id());
          if (row.groupKey() != null) {
            blockedFrom.merge(row.groupKey(), row.id(), Math::min);
          }
        }
      }
      if (ordering == Ordering.TOTAL) {
        return totalFrom == Long.MAX_VALUE ? new HoldBack("", List.of(), totalFrom, false)
            : new HoldBack(" AND m.id < ?", List.of(), totalFrom, false);
      }
      if (blockedFrom.size() > HOLD_BACK_GROUPS_INLINE) {
        return new HoldBack(SCAN_GROUP, List.of(), Long.MAX_VALUE, true);
      }
      StringBuilder sql = new StringBuilder();
      List<BlockedGroup> groups = new ArrayList<>();
      blockedFrom.forEach((group, id) -> {
        // The waiting message itself is left out by its retry time; later ones of its group by this.
        sql.append(" AND (m.group_key IS NULL OR m.group_key <> ? OR m.id < ?)");
        groups.add(new BlockedGroup(group, id));
      });
      return new HoldBack(sql.toString(), groups, Long.MAX_VALUE, false);
    }

    /** Binds the condition's parameters from {@code index} on; returns the next index. */
    int bind(PreparedStatement statement, int index, LocalDateTime now) throws SQLException {
      if (correlated) {
        Sql.setUtc(statement, index++, now);
      } else if (totalFrom != Long.MAX_VALUE) {
        statement.setLong(index++, totalFrom);
      }
      for (BlockedGroup group : groups) {
        statement.setString(index++, group.key());
        statement.setLong(index++, group.fromId());
      }
      return index;
    }
  }

  /** A group held back from its waiting message's id on. */
  private record BlockedGroup(String key, long fromId) {}

  /** Blocked groups spelt out in the MariaDB, H2 and SQLite scan; more fall back to the correlated form. */
  private static final int HOLD_BACK_GROUPS_INLINE = 100;

}
