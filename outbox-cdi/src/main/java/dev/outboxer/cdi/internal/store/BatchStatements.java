package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxException;
import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.jdbc.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The statements of one batch transaction of a partition worker: claim the partition, read its
 * rows, finish (delete what was relayed, record failures). Every statement touches rows of the
 * claimed partition by primary key or by the partition's own index range, and nothing else: no
 * gap locks on MariaDB, nothing another partition's batch waits for.
 *
 * <p>On PostgreSQL the claim and the read go to the database together (one round trip), the finish is
 * one statement; MariaDB, H2 and SQLite take a few more.
 *
 * <p>SQLite has no row locks: a claim begins by drawing its fencing token, a write that waits for
 * the database's single write lock (up to the connection's {@code busy_timeout}) and keeps it until
 * the batch transaction ends. So no two transactions hold a partition at once, and while a batch
 * runs every other writer (publishers, other partitions' claims) waits for it: batches of an SQLite
 * outbox run one at a time.
 */
@ApplicationScoped
public class BatchStatements {

  private static final DateTimeFormatter TIMESTAMP_TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

  private static final String MESSAGE_COLUMNS =
      "id, group_key, message_type, content_type, payload, headers, attempts, next_attempt_at, created_at";
  /** MariaDB and H2: times selected as text on MariaDB (its driver shifts DATETIMEs by the JVM's zone). */
  private static final String MESSAGE_COLUMNS_AS_TEXT = "id, group_key, message_type, content_type, payload, headers,"
      + " attempts, CAST(next_attempt_at AS CHAR), CAST(created_at AS CHAR)";

  /**
   * A setting local to the batch transaction that the PostgreSQL claim sets to a non-empty value when it took the
   * partition. The claim and the read go to the database in one round trip, before the worker knows whether the
   * claim succeeded; the read returns nothing without it (a one-time filter: the plan is the same), so that a
   * worker that polls a partition held by another node reads none of its rows.
   */
  private static final String CLAIMED_SETTING = "outboxer.partition_claimed";
  private static final String CLAIMED = "COALESCE(current_setting('" + CLAIMED_SETTING + "', true), '') <> ''";

  /*
   * PostgreSQL claim. The sub-select locks the partition row or skips it if another transaction holds it; the
   * update takes a new fencing token from the sequence and records the owner; the outer select always returns the
   * rules in force (also when the partition is held elsewhere or no longer exists), the sequence's last value (see
   * PartitionCursor) and sets this transaction's idle timeout: a worker that stops talking to the database inside
   * its batch (a paused JVM) loses its session, and with it the claim, instead of holding the partition forever.
   * It also sets CLAIMED_SETTING for the rest of the transaction: whether the claim succeeded.
   * Parameters: 1 owner node, 2 owner instance, 3 claimed at, 4 outbox, 5 partition, 6 idle timeout (ms), 7 outbox.
   */
  private static final String CLAIM_POSTGRESQL = "WITH c AS ("
      + " UPDATE outbox_partition p SET fencing_token = nextval('outbox_fencing_seq'), owner_node = ?,"
      + " owner_instance = ?, claimed_at = ?"
      + " FROM (SELECT outbox, partition_no, owner_instance AS previous FROM outbox_partition"
      + "       WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED) s"
      + " WHERE p.outbox = s.outbox AND p.partition_no = s.partition_no"
      + " RETURNING p.fencing_token, s.previous)"
      + " SELECT r.partition_count, r.layout_version, c.fencing_token, c.previous,"
      // Before the first nextval, last_value is the start value although no id was handed out yet.
      + " (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM outbox_message_seq),"
      + " set_config('idle_in_transaction_session_timeout', ?, true),"
      // Marks this transaction as holding the partition, for the read that follows the claim in the same round trip.
      + " set_config('" + CLAIMED_SETTING + "', CASE WHEN c.fencing_token IS NULL THEN '' ELSE 'yes' END, true),"
      // The probe of running transactions (PartitionCursor), here and not in the read: it must look before the read's
      // snapshot is taken, so that every transaction it finds ended is committed (or gone) for the read.
      + " %s AS oldest_running"
      + " FROM outbox_rules r LEFT JOIN c ON TRUE WHERE r.outbox = ?";

  /*
   * PostgreSQL read, one statement. Kinds: 'S' the clock and the oldest running transaction (for PartitionCursor); 'W' every
   * message of the partition that waits for a retry (few: one per failing group) without payload; 'M' the next
   * fresh pending rows (no retry time) from the cursor on, by id, without the ones held back by a waiting message
   * (so that a failing group's backlog costs nothing per batch); 'D' the waiting messages whose retry time has
   * come, with payload, below the cursor as well as above it.
   * Parameters: 1 outbox, 2 partition, 3 outbox, 4 partition, 5 scan from, [6 now,] limit, now.
   */
  private static final String READ_POSTGRESQL_W = "WITH w AS MATERIALIZED ("
      + " SELECT id, group_key, next_attempt_at FROM outbox_message"
      + " WHERE outbox = ? AND partition_no = ? AND next_attempt_at IS NOT NULL AND status = 'PENDING'"
      + " AND " + CLAIMED + ")"
      // The clock now (after the claim read the sequence), and what the probe found (see READ_POSTGRESQL_PROBE).
      + " SELECT 'S' AS kind, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS bigint) AS id, NULL AS group_key,"
      + " NULL AS message_type, NULL AS content_type, NULL::bytea AS payload, NULL AS headers, 0 AS attempts,"
      + " NULL::timestamp AS next_attempt_at, NULL::timestamp AS created_at, ";
  /*
   * The start of the oldest transaction still running in this database on another connection (the clock if none);
   * 0 while any transaction is prepared (two-phase) or hidden from us. Part of the claim (see CLAIM_POSTGRESQL).
   * Reading pg_stat_activity copies every backend's status, the most expensive part of a batch: it is only asked
   * for when the cursor has a checkpoint that it could settle (PartitionCursor#needsRunningProbe), otherwise the
   * column is 0 ("cannot be told").
   */
  private static final String PROBE_POSTGRESQL = "CASE WHEN EXISTS (SELECT 1 FROM pg_prepared_xacts WHERE database"
      + " = current_database())"
      + "   OR EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
      + "     AND backend_type = 'client backend' AND state IS NULL)"
      + " THEN 0 ELSE CAST(EXTRACT(EPOCH FROM COALESCE((SELECT MIN(xact_start) FROM pg_stat_activity"
      + "   WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL),"
      + "   clock_timestamp())) * 1000000 AS bigint) END";
  private static final String NO_PROBE_POSTGRESQL = "CAST(0 AS bigint)";
  private static final String READ_POSTGRESQL_BODY = " AS extra WHERE " + CLAIMED
      + " UNION ALL SELECT 'W', id, group_key, NULL, NULL, NULL, NULL, 0, next_attempt_at, NULL, 0 FROM w"
      + " UNION ALL (SELECT 'M', " + MESSAGE_COLUMNS + ", 0 FROM outbox_message m"
      // Fresh rows only, through the partial ready index: the due retries come as 'D' rows, wherever they are.
      + "   WHERE m.outbox = ? AND m.partition_no = ? AND m.status = 'PENDING' AND m.next_attempt_at IS NULL"
      + "   AND m.id >= ? AND " + CLAIMED;
  private static final String READ_POSTGRESQL_GROUP =
      "   AND NOT EXISTS (SELECT 1 FROM w WHERE w.group_key = m.group_key AND w.id < m.id AND w.next_attempt_at > ?)";
  private static final String READ_POSTGRESQL_TOTAL =
      "   AND NOT EXISTS (SELECT 1 FROM w WHERE w.id < m.id AND w.next_attempt_at > ?)";
  private static final String READ_POSTGRESQL_TAIL = "   ORDER BY m.id LIMIT ?)"
      + " UNION ALL SELECT 'D', " + MESSAGE_COLUMNS + ", 0 FROM outbox_message"
      + "   WHERE id IN (SELECT id FROM w WHERE next_attempt_at <= ?)";

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

  /**
   * SQLite: the highest fencing token this process handed out. A token is drawn from a counter
   * row, which a rollback of the claim resets; drawing above this mark keeps a rolled-back claim's
   * token, which its relay may still be using, from being handed out again. SQLite databases are
   * used by one process, so the mark sees every claim but those of an earlier run of the process,
   * whose relays ended with it. Shared by every outbox (tokens only have to increase).
   */
  private static final java.util.concurrent.atomic.AtomicLong SQLITE_TOKEN_MARK =
      new java.util.concurrent.atomic.AtomicLong();

  @Inject Database database;

  /**
   * The outcome of a claim attempt.
   *
   * @param claimed whether this transaction now holds the partition
   * @param fencingToken the new token, if claimed
   * @param previousInstance the run instance that held the partition last, if claimed (null if never)
   * @param partitionCount the outbox's partition count in force
   * @param layoutVersion the version of the partition layout, bumped by every change of the count
   * @param sequenceValue the message sequence's last value at the claim (PostgreSQL; 0 elsewhere)
   * @param oldestRunningMicros PostgreSQL: when the oldest transaction still running on another
   *     connection began, in microseconds, found by the claim before the read's snapshot (the clock
   *     if none; 0 if it cannot be told or was not asked for; 0 elsewhere)
   */
  public record Claim(boolean claimed, long fencingToken, String previousInstance, int partitionCount,
      int layoutVersion, long sequenceValue, long oldestRunningMicros) {}

  /** A stored message as the worker reads it. Times are UTC. */
  public record StoredMessage(long id, String groupKey, String type, String contentType, byte[] payload,
      String headers, int attempts, LocalDateTime nextAttemptAt, LocalDateTime createdAt) {}

  /** A message that waits for its retry: it holds back its group (all of a total-ordered outbox). */
  public record Waiting(long id, String groupKey, LocalDateTime nextAttemptAt) {}

  /**
   * What a read returned.
   *
   * @param rows the pending rows from the scan start on, and the waiting ones that are due, by id
   * @param scanned how many rows the scan from the cursor returned (the limit, if it was cut off)
   * @param lastScannedId the highest id the scan returned, or -1
   * @param waiting every message of the partition that waits for a retry
   * @param readAtMicros PostgreSQL: the database clock at the read, in microseconds (0 elsewhere)
   * @param oldestRunningMicros PostgreSQL: when the oldest transaction still running on another
   *     connection began, in microseconds (the read's clock if none; 0 if it cannot be told or
   *     was not asked for)
   */
  public record Read(List<StoredMessage> rows, int scanned, long lastScannedId, List<Waiting> waiting,
      long readAtMicros, long oldestRunningMicros) {}

  /**
   * What a read asks for.
   *
   * @param ordering the outbox's ordering: which rows a waiting message holds back
   * @param scanFrom the lowest id of a fresh row to read (the partition's cursor)
   * @param limit at most this many fresh rows
   * @param probeRunning PostgreSQL: whether to find out when the oldest running transaction began
   *     ({@link Read#oldestRunningMicros()}; 0 without), which only a cursor with a checkpoint to
   *     settle needs; elsewhere ignored
   */
  public record ReadRequest(Ordering ordering, long scanFrom, int limit, boolean probeRunning) {}

  /** A claim, and the read that followed it if it took the partition (else null). */
  public record ClaimedRead(Claim claim, Read read) {}

  /** A failed attempt to record: a retry time, or none (dead). */
  public record Failure(long id, int attempts, LocalDateTime nextAttemptAt, String error) {}

  public Claim claim(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis) throws SQLException {
    return claim(connection, outbox, partition, node, instance, now, idleTimeoutMillis, false);
  }

  /**
   * The prepared (two-phase) transaction that holds the partition's row, for a worker that could
   * not claim it; empty if none does, and always on other databases than PostgreSQL (see {@link
   * PreparedHolders}).
   */
  public java.util.Optional<dev.outboxer.PreparedTransaction> preparedHolder(Connection connection, String outbox,
      int partition) throws SQLException {
    return java.util.Optional.ofNullable(
        PreparedHolders.of(connection, database.dialect(), outbox, partition, partition + 1).get(partition));
  }

  /** As above; on PostgreSQL with {@code probeRunning} the claim also probes the running transactions. */
  public Claim claim(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, boolean probeRunning) throws SQLException {
    Dialect dialect = database.dialect();
    if (dialect == Dialect.POSTGRESQL) {
      try (PreparedStatement statement = connection.prepareStatement(claimPostgresqlSql(probeRunning))) {
        bindPostgresqlClaim(statement, outbox, partition, node, instance, now, idleTimeoutMillis);
        try (ResultSet rows = statement.executeQuery()) {
          return postgresqlClaim(rows, outbox);
        }
      }
    }
    if (dialect.singleWriter()) {
      return claimSingleWriter(connection, outbox, partition, node, instance, now);
    }
    Claim claim = new Claim(false, 0, null, 0, 0, 0, 0);
    String lock = dialect == Dialect.MARIADB
        ? "SELECT owner_instance, NEXT VALUE FOR outbox_fencing_seq FROM outbox_partition"
            + " WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED"
        : "SELECT owner_instance FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED";
    try (PreparedStatement statement = connection.prepareStatement(lock)) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        if (rows.next()) {
          long token = dialect == Dialect.MARIADB ? rows.getLong(2) : nextFencingToken(connection);
          claim = new Claim(true, token, rows.getString(1), 0, 0, 0, 0);
        }
      }
    }
    if (claim.claimed()) {
      recordOwner(connection, outbox, partition, node, instance, now, claim.fencingToken());
    }
    return withRules(connection, outbox, claim);
  }

  /**
   * Claims the partition and, if that succeeded, reads it ({@link #read}): on PostgreSQL both in
   * one round trip, two statements of the same transaction, the read returning nothing unless the
   * claim took the partition. The read starts where {@code request} says, before the caller knows
   * who held the partition last: a caller that must then read from elsewhere reads again.
   *
   * @return the claim, and the read or null if the partition was not claimed
   */
  public ClaimedRead claimAndRead(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, ReadRequest request) throws SQLException {
    if (database.dialect() != Dialect.POSTGRESQL) {
      Claim claim = claim(connection, outbox, partition, node, instance, now, idleTimeoutMillis);
      return new ClaimedRead(claim, claim.claimed() ? read(connection, outbox, partition, request, now) : null);
    }
    try (PreparedStatement statement = connection.prepareStatement(claimPostgresqlSql(request.probeRunning()) + ";\n"
        + postgresqlReadSql(request.ordering(), request.probeRunning()))) {
      int index = bindPostgresqlClaim(statement, outbox, partition, node, instance, now, idleTimeoutMillis);
      bindPostgresqlRead(statement, index, outbox, partition, request, now);
      if (!statement.execute()) {
        throw new SQLException("The claim returned no result set");
      }
      Claim claim;
      try (ResultSet rows = statement.getResultSet()) {
        claim = postgresqlClaim(rows, outbox);
      }
      if (!statement.getMoreResults()) {
        throw new SQLException("The read after the claim returned no result set");
      }
      try (ResultSet rows = statement.getResultSet()) {
        return new ClaimedRead(claim, claim.claimed() ? postgresqlRead(rows) : null);
      }
    }
  }

  /** Binds the PostgreSQL claim's parameters from 1 on; returns the next index. */
  private static int bindPostgresqlClaim(PreparedStatement statement, String outbox, int partition, String node,
      String instance, LocalDateTime now, long idleTimeoutMillis) throws SQLException {
    statement.setString(1, node);
    statement.setString(2, instance);
    Sql.setUtc(statement, 3, now);
    statement.setString(4, outbox);
    statement.setInt(5, partition);
    statement.setString(6, Long.toString(idleTimeoutMillis));
    statement.setString(7, outbox);
    return 8;
  }

  private static Claim postgresqlClaim(ResultSet rows, String outbox) throws SQLException {
    if (!rows.next()) {
      throw missingRules(outbox);
    }
    long token = rows.getLong(3);
    boolean claimed = !rows.wasNull();
    return new Claim(claimed, token, rows.getString(4), rows.getInt(1), rows.getInt(2), rows.getLong(5),
        rows.getLong(8));
  }

  /**
   * SQLite: the token is drawn first, which takes the write lock (or waits for it); the partition is
   * then free by construction. A writer that holds the lock for longer than busy_timeout makes the
   * partition count as held elsewhere, as a locked row does on the other databases.
   */
  private Claim claimSingleWriter(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now) throws SQLException {
    long token;
    try {
      token = SingleWriter.draw(connection, "outbox_fencing_seq", 1, SQLITE_TOKEN_MARK.get());
    } catch (SQLException busy) {
      if (!SingleWriter.isBusy(busy)) {
        throw busy;
      }
      return withRules(connection, outbox, new Claim(false, 0, null, 0, 0, 0, 0));
    }
    SQLITE_TOKEN_MARK.accumulateAndGet(token, Math::max);
    Claim claim = new Claim(false, 0, null, 0, 0, 0, 0);
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT owner_instance FROM outbox_partition WHERE outbox = ? AND partition_no = ?")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        if (rows.next()) {
          claim = new Claim(true, token, rows.getString(1), 0, 0, 0, 0);
        }
      }
    }
    if (claim.claimed()) {
      recordOwner(connection, outbox, partition, node, instance, now, token);
    }
    return withRules(connection, outbox, claim);
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

  /** The claim with the rules in force. */
  private static Claim withRules(Connection connection, String outbox, Claim claim) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT partition_count, layout_version FROM outbox_rules WHERE outbox = ?")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          throw missingRules(outbox);
        }
        return new Claim(claim.claimed(), claim.fencingToken(), claim.previousInstance(), rows.getInt(1),
            rows.getInt(2), 0, 0);
      }
    }
  }

  private static long nextFencingToken(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("VALUES NEXT VALUE FOR outbox_fencing_seq");
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /**
   * Reads the partition's waiting messages and up to {@code limit} pending rows from {@code
   * scanFrom} on that are not held back by a waiting message (per group, or all of them in {@code
   * total} ordering), plus the waiting messages that are due.
   */
  public Read read(Connection connection, String outbox, int partition, ReadRequest request, LocalDateTime now)
      throws SQLException {
    if (database.dialect() == Dialect.POSTGRESQL) {
      try (PreparedStatement statement = preparePostgresqlRead(connection, "", outbox, partition, request, now);
          ResultSet rows = statement.executeQuery()) {
        return postgresqlRead(rows);
      }
    }
    Ordering ordering = request.ordering();
    long scanFrom = request.scanFrom();
    int limit = request.limit();
    List<Waiting> waiting = new ArrayList<>();
    boolean text = database.dialect() == Dialect.MARIADB;
    String columns = text ? MESSAGE_COLUMNS_AS_TEXT : MESSAGE_COLUMNS;
    try (PreparedStatement statement = connection.prepareStatement("SELECT id, group_key, "
        + Sql.readTime(text, "next_attempt_at") + " FROM outbox_message WHERE outbox = ? AND partition_no = ?"
        + " AND next_attempt_at IS NOT NULL AND status = 'PENDING'")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          waiting.add(new Waiting(rows.getLong(1), rows.getString(2), Sql.getUtc(rows, 3)));
        }
      }
    }
    List<StoredMessage> scannedRows = new ArrayList<>();
    HoldBack holdBack = HoldBack.of(ordering, waiting, now);
    try (PreparedStatement statement = connection.prepareStatement(String.format(SCAN_HEAD, columns) + holdBack.sql()
        + SCAN_TAIL)) {
      int index = 1;
      statement.setString(index++, outbox);
      statement.setInt(index++, partition);
      statement.setLong(index++, scanFrom);
      Sql.setUtc(statement, index++, now);
      index = holdBack.bind(statement, index, now);
      statement.setInt(index, limit);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          scannedRows.add(message(rows, 1));
        }
      }
    }
    List<Long> due = new ArrayList<>();
    for (Waiting row : waiting) {
      if (!row.nextAttemptAt().isAfter(now) && row.id() < scanFrom) {
        due.add(row.id());
      }
    }
    List<StoredMessage> dueRows = new ArrayList<>();
    if (!due.isEmpty()) {
      try (PreparedStatement statement = connection.prepareStatement("SELECT " + columns
          + " FROM outbox_message WHERE id IN (" + Sql.placeholders(due.size()) + ")")) {
        Sql.setLongs(statement, 1, due);
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            dueRows.add(message(rows, 1));
          }
        }
      }
    }
    return merged(scannedRows, dueRows, waiting, 0, 0);
  }

  /** The rows of the PostgreSQL read, sorted by kind. */
  private static Read postgresqlRead(ResultSet rows) throws SQLException {
    List<Waiting> waiting = new ArrayList<>();
    List<StoredMessage> scannedRows = new ArrayList<>();
    List<StoredMessage> dueRows = new ArrayList<>();
    long readAt = 0;
    long oldestRunning = 0;
    while (rows.next()) {
      switch (rows.getString(1)) {
        case "S" -> {
          readAt = rows.getLong(2);
          oldestRunning = rows.getLong(11);
        }
        case "W" -> waiting.add(new Waiting(rows.getLong(2), rows.getString(3), Sql.getUtc(rows, 9)));
        case "M" -> scannedRows.add(message(rows, 2));
        default -> dueRows.add(message(rows, 2));
      }
    }
    return merged(scannedRows, dueRows, waiting, readAt, oldestRunning);
  }

  private static String claimPostgresqlSql(boolean probeRunning) {
    return String.format(CLAIM_POSTGRESQL, probeRunning ? PROBE_POSTGRESQL : NO_PROBE_POSTGRESQL);
  }

  private static String postgresqlReadSql(Ordering ordering, boolean probeRunning) {
    String holdBack = switch (ordering) {
      case GROUP -> READ_POSTGRESQL_GROUP;
      case TOTAL -> READ_POSTGRESQL_TOTAL;
      case NONE -> "";
    };
    // The read never probes: the claim, an earlier statement, did (see PROBE_POSTGRESQL).
    return READ_POSTGRESQL_W + NO_PROBE_POSTGRESQL
        + READ_POSTGRESQL_BODY + holdBack + READ_POSTGRESQL_TAIL;
  }

  /** Binds the PostgreSQL read's parameters from {@code index} on. */
  private static void bindPostgresqlRead(PreparedStatement statement, int index, String outbox, int partition,
      ReadRequest request, LocalDateTime now) throws SQLException {
    statement.setString(index++, outbox);
    statement.setInt(index++, partition);
    statement.setString(index++, outbox);
    statement.setInt(index++, partition);
    statement.setLong(index++, request.scanFrom());
    if (request.ordering() != Ordering.NONE) {
      Sql.setUtc(statement, index++, now);
    }
    statement.setInt(index++, request.limit());
    Sql.setUtc(statement, index, now);
  }

  /**
   * The PostgreSQL read as a statement with its parameters bound; {@code prefix} goes before it
   * ({@code "EXPLAIN "} in the tests that pin the plan's shape).
   */
  static PreparedStatement preparePostgresqlRead(Connection connection, String prefix, String outbox, int partition,
      ReadRequest request, LocalDateTime now) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(prefix + postgresqlReadSql(request.ordering(),
        request.probeRunning()));
    try {
      bindPostgresqlRead(statement, 1, outbox, partition, request, now);
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
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

  /** The scanned rows plus the due waiting rows the scan did not reach, by id. */
  private static Read merged(List<StoredMessage> scannedRows, List<StoredMessage> dueRows, List<Waiting> waiting,
      long readAt, long oldestRunning) {
    List<StoredMessage> rows = new ArrayList<>(scannedRows.size() + dueRows.size());
    rows.addAll(scannedRows);
    java.util.Set<Long> ids = new java.util.HashSet<>();
    scannedRows.forEach(row -> ids.add(row.id()));
    for (StoredMessage row : dueRows) {
      if (ids.add(row.id())) {
        rows.add(row);
      }
    }
    rows.sort(java.util.Comparator.comparingLong(StoredMessage::id));
    long last = scannedRows.isEmpty() ? -1 : scannedRows.get(scannedRows.size() - 1).id();
    return new Read(rows, scannedRows.size(), last, waiting, readAt, oldestRunning);
  }

  private static StoredMessage message(ResultSet rows, int first) throws SQLException {
    return new StoredMessage(rows.getLong(first), rows.getString(first + 1), rows.getString(first + 2),
        rows.getString(first + 3), rows.getBytes(first + 4), rows.getString(first + 5), rows.getInt(first + 6),
        Sql.getUtc(rows, first + 7), Sql.getUtc(rows, first + 8));
  }

  /**
   * Deletes the relayed rows and records the failed attempts; returns how many rows were deleted.
   * Failure texts must already be sanitised (no NUL, at most 2,000 characters).
   */
  public int finish(Connection connection, Collection<Long> relayed, List<Failure> failures, LocalDateTime now)
      throws SQLException {
    Dialect dialect = database.dialect();
    int deleted = 0;
    if (dialect == Dialect.POSTGRESQL) {
      if (failures.isEmpty()) {
        if (relayed.isEmpty()) {
          return 0;
        }
        try (PreparedStatement statement = connection.prepareStatement(
            "DELETE FROM outbox_message WHERE id = ANY(?)")) {
          Array ids = connection.createArrayOf("bigint", relayed.toArray());
          statement.setArray(1, ids);
          return statement.executeUpdate();
        }
      }
      // One round trip for both. Times travel as text: an array of timestamps would be converted through the JVM's
      // time zone by the driver.
      try (PreparedStatement statement = connection.prepareStatement(
          "WITH d AS (DELETE FROM outbox_message WHERE id = ANY(?) RETURNING 1),"
              + " f AS (UPDATE outbox_message m SET attempts = u.attempts,"
              + "   next_attempt_at = CAST(u.next_at AS timestamp), last_attempt_at = ?, last_error = u.error,"
              + "   status = CASE WHEN u.next_at IS NULL THEN 'DEAD' ELSE 'PENDING' END"
              + "   FROM unnest(?::bigint[], ?::int[], ?::text[], ?::text[]) AS u(id, attempts, next_at, error)"
              + "   WHERE m.id = u.id AND m.status = 'PENDING' RETURNING 1)"
              + " SELECT (SELECT COUNT(*) FROM d), (SELECT COUNT(*) FROM f)")) {
        statement.setArray(1, connection.createArrayOf("bigint", relayed.toArray()));
        Sql.setUtc(statement, 2, now);
        Long[] ids = new Long[failures.size()];
        Integer[] attempts = new Integer[failures.size()];
        String[] next = new String[failures.size()];
        String[] errors = new String[failures.size()];
        for (int i = 0; i < failures.size(); i++) {
          Failure failure = failures.get(i);
          ids[i] = failure.id();
          attempts[i] = failure.attempts();
          next[i] = failure.nextAttemptAt() == null ? null : TIMESTAMP_TEXT.format(failure.nextAttemptAt());
          errors[i] = failure.error();
        }
        statement.setArray(3, connection.createArrayOf("bigint", ids));
        statement.setArray(4, connection.createArrayOf("integer", attempts));
        statement.setArray(5, connection.createArrayOf("text", next));
        statement.setArray(6, connection.createArrayOf("text", errors));
        try (ResultSet rows = statement.executeQuery()) {
          rows.next();
          return rows.getInt(1);
        }
      }
    }
    if (!relayed.isEmpty()) {
      // One single-row delete per id, sent as one batch: each is an equality on the primary key, which locks that
      // row and nothing else. An IN list becomes a range scan on MariaDB, which under REPEATABLE READ also locks
      // the gap after its last row, up to the end of the table: every publish would wait for this batch.
      try (PreparedStatement statement = connection.prepareStatement("DELETE FROM outbox_message WHERE id = ?")) {
        for (long id : relayed) {
          statement.setLong(1, id);
          statement.addBatch();
        }
        for (int count : statement.executeBatch()) {
          deleted += count == java.sql.Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, count);
        }
      }
    }
    if (!failures.isEmpty()) {
      recordFailures(connection, failures, now);
    }
    return deleted;
  }

  /** Records failed attempts by primary key, each only if the message is still pending. */
  public void recordFailures(Connection connection, List<Failure> failures, LocalDateTime now) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_message SET attempts = ?,"
        + " next_attempt_at = ?, last_attempt_at = ?, last_error = ?, status = ? WHERE id = ? AND status = 'PENDING'")) {
      for (Failure failure : failures) {
        statement.setInt(1, failure.attempts());
        Sql.setUtc(statement, 2, failure.nextAttemptAt());
        Sql.setUtc(statement, 3, now);
        statement.setString(4, failure.error());
        statement.setString(5, failure.nextAttemptAt() == null ? MessageStatus.DEAD.name() : MessageStatus.PENDING.name());
        statement.setLong(6, failure.id());
        statement.addBatch();
      }
      statement.executeBatch();
    }
  }

  private static OutboxException missingRules(String outbox) {
    return new OutboxException("Outbox '" + outbox + "': its row in outbox_rules is missing. Outboxer creates it at"
        + " start-up; was it deleted by hand?");
  }
}
