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

/**
 * PostgreSQL's batch statements, the fast path: the claim and the read go to the database together
 * (one round trip, the read returning nothing unless the claim took the partition), the read is
 * one statement that also reports the clock and the oldest running transaction for the partition's
 * read cursor ({@code PartitionCursor}), and the finish is one statement with arrays.
 */
final class PostgresBatchSql implements BatchSql {

  private static final DateTimeFormatter TIMESTAMP_TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

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
      + " probe.oldest_running, probe.running_transactions"
      + " FROM outbox_rules r LEFT JOIN c ON TRUE CROSS JOIN %s probe WHERE r.outbox = ?";

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
   * The probe of running transactions, a derived table of two columns. running_transactions: every transaction running
   * in this database on another connection that may hold an outbox id it has not committed yet, each as a 64-bit hash of
   * its session and its start, sorted (PartitionCursor arms and settles its checkpoints with them; a hash shared by two
   * transactions only makes it wait longer). Left out: what is not a client's session (autovacuum, background
   * workers), and a transaction that has no transaction id (wrote nothing) and waits between statements, as a report
   * or a forgotten psql holding a snapshot does, or an idle LISTEN session in the transaction that delivers its
   * notifications (dated from its last statement, possibly minutes old). It cannot hold such an id: a
   * publish draws its id in the statement that writes its row (running until the row is written, and with a
   * transaction id from then on), and revived messages draw theirs in a statement that also takes a transaction id
   * (PostgresSql#nextMessageIds). Kept in the list, it would hold every checkpoint for as long as it stays open, and
   * the reads would walk every row the drain deleted meanwhile, which a held snapshot keeps from being cleaned up.
   * oldest_running: when the oldest of them began (the clock if none), for the long-transaction warning and gauge.
   * Both say "cannot tell" (NULL, 0) while any transaction is prepared (two-phase) or hidden from us, and in a
   * transaction above READ COMMITTED (a data source or database default of REPEATABLE READ or SERIALIZABLE): such a
   * transaction reads the snapshot its first statement took, the claim's, before this probe ran, so a transaction the
   * probe finds ended may have committed after the read's snapshot. Part of the claim (see CLAIM_POSTGRESQL).
   * The sessions are read before the prepared transactions: the sessions' statuses are copied once a transaction, at
   * their first use, by the aggregate's scan, which is done before its result row, where the prepared transactions are
   * read when asked. A publisher that prepares between the two is then running in the copy, or prepared, or committed
   * (visible to the read); in the other order it could be in neither. OFFSET 0 keeps the planner from copying the
   * conditions into both columns.
   * The functions under the views pg_stat_activity and pg_prepared_xacts, scanned once: the views join pg_database
   * and pg_authid on every use: with them in three subqueries PostgreSQL 15 plans the probe in 0.4-0.6 ms, with the
   * functions in 0.13-0.28 ms, which a claim pays for its first ten or so executions on each pooled connection, until
   * the server keeps a generic plan. Reading the sessions copies every
   * backend's status, the most expensive part of a batch: it is only asked for when the cursor has a checkpoint to
   * arm or settle (PartitionCursor#needsRunningProbe).
   */
  private static final String PROBE_POSTGRESQL = "(SELECT CASE WHEN x.cannot_tell THEN 0 ELSE x.oldest END AS oldest_running,"
      + " CASE WHEN x.cannot_tell THEN NULL ELSE x.running END AS running_transactions FROM (SELECT"
      + " current_setting('transaction_isolation') <> 'read committed'"
      + "   OR COALESCE(bool_or(a.backend_type = 'client backend' AND a.state IS NULL), false)"
      + "   OR EXISTS (SELECT 1 FROM pg_prepared_xact() p WHERE p.dbid = (SELECT oid FROM pg_database"
      + "     WHERE datname = current_database())) AS cannot_tell,"
      + " CAST(EXTRACT(EPOCH FROM COALESCE(MIN(a.xact_start), clock_timestamp())) * 1000000 AS bigint) AS oldest,"
      + " COALESCE(array_agg(a.transaction ORDER BY a.transaction) FILTER (WHERE a.xact_start IS NOT NULL"
      + "   AND a.backend_type = 'client backend'"
      + "   AND (a.backend_xid IS NOT NULL OR a.state NOT IN ('idle', 'idle in transaction', 'idle in transaction (aborted)'))),"
      + "   CAST('{}' AS bigint[])) AS running"
      + " FROM (SELECT backend_type, state, xact_start, backend_xid,"
      + "   hashtextextended(pid::text || '@' || CAST(EXTRACT(EPOCH FROM xact_start) * 1000000 AS bigint)::text, 0) AS transaction"
      + "   FROM pg_stat_get_activity(NULL) WHERE datid = (SELECT oid FROM pg_database WHERE datname = current_database())"
      + "   AND pid <> pg_backend_pid()) a"
      + " OFFSET 0) x)";
  private static final String NO_PROBE_POSTGRESQL = "CAST(0 AS bigint)";
  private static final String NO_PROBE_POSTGRESQL_TABLE =
      "(SELECT CAST(0 AS bigint) AS oldest_running, CAST(NULL AS bigint[]) AS running_transactions)";
  private static final String READ_POSTGRESQL_BODY = " AS extra WHERE " + CLAIMED
      + " UNION ALL SELECT 'W', id, group_key, NULL, NULL, NULL, NULL, 0, next_attempt_at, NULL, 0 FROM w"
      + " UNION ALL (SELECT 'M', " + BatchStatements.MESSAGE_COLUMNS + ", 0 FROM outbox_message m"
      // Fresh rows only, through the partial ready index: the due retries come as 'D' rows, wherever they are.
      + "   WHERE m.outbox = ? AND m.partition_no = ? AND m.status = 'PENDING' AND m.next_attempt_at IS NULL"
      + "   AND m.id >= ? AND " + CLAIMED;
  private static final String READ_POSTGRESQL_GROUP =
      "   AND NOT EXISTS (SELECT 1 FROM w WHERE w.group_key = m.group_key AND w.id < m.id AND w.next_attempt_at > ?)";
  private static final String READ_POSTGRESQL_TOTAL =
      "   AND NOT EXISTS (SELECT 1 FROM w WHERE w.id < m.id AND w.next_attempt_at > ?)";
  private static final String READ_POSTGRESQL_TAIL = "   ORDER BY m.id LIMIT ?)"
      // The lowest due ids first, a read's limit of them (see BatchStatements.merged), each looked up by its id: a
      // LATERAL subquery with a LIMIT is run per due id and cannot become a join whose other side walks the table
      // (an "id IN (...)" was answered by a semi-join over the whole primary key when statistics expected one row).
      + " UNION ALL SELECT 'D', o.*, 0 FROM (SELECT id FROM w WHERE next_attempt_at <= ? ORDER BY id LIMIT ?) due"
      + "   CROSS JOIN LATERAL (SELECT " + BatchStatements.MESSAGE_COLUMNS + " FROM outbox_message"
      + "   WHERE id = due.id LIMIT 1) o";

  /**
   * Run before every read, in the same round trip: no bitmap scan for the rest of the transaction, the setting it
   * had kept in outboxer.enable_bitmapscan (the nested call runs first). For the read's scan of fresh rows
   * ('M'), statistics that expect one pending row (taken when the partition was empty, before a backlog) price a
   * bitmap scan of the ready index and a sort the same as walking the index in id order; with the backlog, the
   * bitmap scan fetches every pending row of the partition to return the first hundred, at each batch. Without
   * bitmap scans the planner walks the ready index in order and stops at the limit.
   */
  static final String READ_PLAN_GUARD = "SELECT set_config('enable_bitmapscan', 'off' || left(set_config("
      + "'outboxer.enable_bitmapscan', current_setting('enable_bitmapscan'), true), 0), true)";
  /** Run after every read, in the same round trip: the setting READ_PLAN_GUARD changed, back as it was. */
  private static final String READ_PLAN_RESTORE =
      "SELECT set_config('enable_bitmapscan', current_setting('outboxer.enable_bitmapscan'), true)";

  @Override
  public Claim claim(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, boolean probeRunning) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(claimPostgresqlSql(probeRunning))) {
      bindPostgresqlClaim(statement, outbox, partition, node, instance, now, idleTimeoutMillis);
      try (ResultSet rows = statement.executeQuery()) {
        return postgresqlClaim(rows, outbox);
      }
    }
  }

  @Override
  public ClaimedRead claimAndRead(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, ReadRequest request) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(claimPostgresqlSql(request.probeRunning()) + ";\n"
        + guarded(postgresqlReadSql(request.ordering(), request.probeRunning())))) {
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
        throw new SQLException("The read's plan guard returned no result set");
      }
      Read read = guardedRead(statement, request.limit());
      return new ClaimedRead(claim, claim.claimed() ? read : null);
    }
  }

  @Override
  public Read read(Connection connection, String outbox, int partition, ReadRequest request, LocalDateTime now)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        guarded(postgresqlReadSql(request.ordering(), request.probeRunning())))) {
      bindPostgresqlRead(statement, 1, outbox, partition, request, now);
      if (!statement.execute()) {
        throw new SQLException("The read's plan guard returned no result set");
      }
      return guardedRead(statement, request.limit());
    }
  }

  /** The read between READ_PLAN_GUARD and READ_PLAN_RESTORE, three statements in one round trip. */
  private static String guarded(String read) {
    return READ_PLAN_GUARD + ";\n" + read + ";\n" + READ_PLAN_RESTORE;
  }

  /**
   * The read's rows from a statement positioned on READ_PLAN_GUARD's result; READ_PLAN_RESTORE's result must follow
   * the read's.
   */
  private static Read guardedRead(PreparedStatement statement, int limit) throws SQLException {
    if (!statement.getMoreResults()) {
      throw new SQLException("The read returned no result set");
    }
    Read read;
    try (ResultSet rows = statement.getResultSet()) {
      read = postgresqlRead(rows, limit);
    }
    if (!statement.getMoreResults()) {
      throw new SQLException("The read's plan guard was not undone");
    }
    return read;
  }

  @Override
  public int finish(Connection connection, Collection<Long> relayed, List<Failure> failures, LocalDateTime now)
      throws SQLException {
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
      throw BatchStatements.missingRules(outbox);
    }
    long token = rows.getLong(3);
    boolean claimed = !rows.wasNull();
    return new Claim(claimed, token, rows.getString(4), rows.getInt(1), rows.getInt(2), rows.getLong(5),
        rows.getLong(8), runningTransactions(rows.getArray(9)));
  }

  /** The probe's identities of running transactions, sorted; null if it could not tell or was not asked. */
  private static long[] runningTransactions(Array array) throws SQLException {
    if (array == null) {
      return null;
    }
    try {
      Object[] values = (Object[]) array.getArray();
      long[] running = new long[values.length];
      for (int i = 0; i < values.length; i++) {
        running[i] = ((Number) values[i]).longValue();
      }
      // The database sorted them as signed 64-bit numbers, as Java does; sorting again costs nothing and holds
      // Arrays.binarySearch's precondition whatever the driver did.
      java.util.Arrays.sort(running);
      return running;
    } finally {
      array.free();
    }
  }

  /** The rows of the PostgreSQL read, sorted by kind. */
  private static Read postgresqlRead(ResultSet rows, int limit) throws SQLException {
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
        case "M" -> scannedRows.add(BatchStatements.message(rows, 2));
        default -> dueRows.add(BatchStatements.message(rows, 2));
      }
    }
    return BatchStatements.merged(scannedRows, dueRows, limit, waiting, readAt, oldestRunning);
  }

  private static String claimPostgresqlSql(boolean probeRunning) {
    return String.format(CLAIM_POSTGRESQL, probeRunning ? PROBE_POSTGRESQL : NO_PROBE_POSTGRESQL_TABLE);
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
    Sql.setUtc(statement, index++, now);
    statement.setInt(index, request.limit());
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
}
