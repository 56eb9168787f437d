package dev.outboxer.cdi.internal.store;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.jdbc.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The statements of one batch transaction of a partition worker: claim the partition, read its
 * rows, finish (delete what was relayed, record failures). Every statement touches rows of the
 * claimed partition by primary key or by the partition's own index range, and nothing else: no
 * gap locks on MariaDB, nothing another partition's batch waits for.
 *
 * <p>On PostgreSQL the claim and the read go to the database together (one round trip), the finish is
 * one statement; MariaDB, H2 and SQLite take a few more.
 *
 * <p>SQLite has no row locks: its claim takes the database's single write lock until the batch
 * transaction ends, so batches of an SQLite outbox run one at a time ({@link SqliteBatchSql}).
 *
 * <p>The statements themselves are in one class per database behind {@link BatchSql}
 * ({@link Dialect#batchSql()}); this class is what the workers call, and the types they exchange.
 */
@ApplicationScoped
public class BatchStatements {

  /** The columns of a message, in the order {@link #message} reads them. */
  static final String MESSAGE_COLUMNS =
      "id, group_key, message_type, content_type, payload, headers, attempts, next_attempt_at, created_at";

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
   * @param runningTransactions PostgreSQL: the transactions running on other connections at the
   *     claim, before the read's snapshot, each as a hash of its session and start, sorted (empty if
   *     none; null if it cannot be told or was not asked for; null elsewhere)
   */
  public record Claim(boolean claimed, long fencingToken, String previousInstance, int partitionCount,
      int layoutVersion, long sequenceValue, long oldestRunningMicros, long[] runningTransactions) {}

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
   * @param dueCutOffAt the due waiting rows were cut off at the read's limit: those up to this id
   *     were read, later ones were not ({@code Long.MAX_VALUE} if every due row was read). Nothing
   *     above it may be relayed by this batch: a due row left unread still holds back its group.
   */
  public record Read(List<StoredMessage> rows, int scanned, long lastScannedId, List<Waiting> waiting,
      long readAtMicros, long oldestRunningMicros, long dueCutOffAt) {}

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
        database.dialect().sql().preparedHolders(connection, outbox, partition, partition + 1).get(partition));
  }

  /** As above; on PostgreSQL with {@code probeRunning} the claim also probes the running transactions. */
  public Claim claim(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, boolean probeRunning) throws SQLException {
    return sql().claim(connection, outbox, partition, node, instance, now, idleTimeoutMillis, probeRunning);
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
    return sql().claimAndRead(connection, outbox, partition, node, instance, now, idleTimeoutMillis, request);
  }

  /**
   * Reads the partition's waiting messages and up to {@code limit} pending rows from {@code
   * scanFrom} on that are not held back by a waiting message (per group, or all of them in {@code
   * total} ordering), plus the waiting messages that are due.
   */
  public Read read(Connection connection, String outbox, int partition, ReadRequest request, LocalDateTime now)
      throws SQLException {
    return sql().read(connection, outbox, partition, request, now);
  }

  /**
   * Deletes the relayed rows and records the failed attempts; returns how many rows were deleted.
   * Failure texts must already be sanitised (no NUL, at most 2,000 characters).
   */
  public int finish(Connection connection, Collection<Long> relayed, List<Failure> failures, LocalDateTime now)
      throws SQLException {
    return sql().finish(connection, relayed, failures, now);
  }

  /** Records failed attempts by primary key, each only if the message is still pending. */
  public void recordFailures(Connection connection, List<Failure> failures, LocalDateTime now) throws SQLException {
    recordFailuresByPrimaryKey(connection, failures, now);
  }

  private BatchSql sql() {
    return database.dialect().batchSql();
  }

  /** {@link #recordFailures}, also the row-by-row finish's second half. */
  static void recordFailuresByPrimaryKey(Connection connection, List<Failure> failures, LocalDateTime now)
      throws SQLException {
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

  /**
   * The scanned rows plus the due waiting rows the scan did not reach, by id. The due rows were read
   * lowest ids first, at most {@code dueLimit} of them: a read that found as many may have left more
   * (a thousand retries or delayed messages due at once are read a batch at a time, not all at once).
   */
  static Read merged(List<StoredMessage> scannedRows, List<StoredMessage> dueRows, int dueLimit,
      List<Waiting> waiting, long readAt, long oldestRunning) {
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
    long dueCutOffAt = Long.MAX_VALUE;
    if (dueRows.size() >= dueLimit) {
      dueCutOffAt = dueRows.stream().mapToLong(StoredMessage::id).max().orElse(Long.MAX_VALUE);
    }
    return new Read(rows, scannedRows.size(), last, waiting, readAt, oldestRunning, dueCutOffAt);
  }

  /** A message from the columns of {@link #MESSAGE_COLUMNS}, from column {@code first} on. */
  static StoredMessage message(ResultSet rows, int first) throws SQLException {
    return new StoredMessage(rows.getLong(first), rows.getString(first + 1), rows.getString(first + 2),
        rows.getString(first + 3), rows.getBytes(first + 4), rows.getString(first + 5), rows.getInt(first + 6),
        Sql.getUtc(rows, first + 7), Sql.getUtc(rows, first + 8));
  }

  static OutboxException missingRules(String outbox) {
    return new OutboxException("Outbox '" + outbox + "': its row in outbox_rules is missing. Outboxer creates it at"
        + " start-up; was it deleted by hand?");
  }
}
