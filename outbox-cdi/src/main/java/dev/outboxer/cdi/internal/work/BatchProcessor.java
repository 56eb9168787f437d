package dev.outboxer.cdi.internal.work;

import dev.outboxer.DeadMessage;
import dev.outboxer.cdi.internal.LogText;
import dev.outboxer.cdi.internal.cdi.NodeIdentity;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.DataSourceLookup;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.publish.Codecs;
import dev.outboxer.cdi.internal.store.BatchStatements.Claim;
import dev.outboxer.cdi.internal.store.BatchStatements.ClaimedRead;
import dev.outboxer.cdi.internal.store.BatchStatements.Read;
import dev.outboxer.cdi.internal.store.BatchStatements.ReadRequest;
import dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage;
import dev.outboxer.cdi.internal.store.BatchStatements;
import dev.outboxer.cdi.internal.tx.Transactions.Outcome;
import dev.outboxer.cdi.internal.tx.BatchTransaction;
import dev.outboxer.cdi.internal.tx.LocalTransaction;
import dev.outboxer.cdi.internal.tx.PlainConnections;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.OrderingUnits;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RecordOutcome;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.Setting;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One batch of one partition, in one transaction (a JTA transaction; a plain database transaction
 * for a relay that does not {@linkplain Relay#usesWorkerTransaction() use the worker's
 * transaction}, see {@link LocalTransaction}): claim the partition with a new fencing token
 * (skipping it if another worker holds it), read its ready rows by id from the partition's cursor
 * on, hand them to the relay while the claim holds, delete what the relay confirmed, record
 * failures, commit.
 *
 * <p>If the commit fails, nothing of it happened and the same rows are read again: the whole batch
 * is delivered again, in the same order. The failures the relay reported are then recorded in a
 * transaction of their own, so that a message that breaks every batch it is in still counts its
 * attempts and dies after {@code max-attempts}. If the commit's outcome is unknown, it is said so.
 */
@ApplicationScoped
public class BatchProcessor {

  private static final Logger LOG = Logger.getLogger(BatchProcessor.class.getName());
  /** A test-only switch (the chaos suite's control run): no lease, no database-side session timeout. */
  static final boolean FENCING = !"off".equalsIgnoreCase(System.getProperty("outboxer.fencing", "on"));

  @Inject Transactions transactions;
  @Inject Jdbc jdbc;
  @Inject DataSourceLookup dataSources;
  @Inject BatchStatements statements;
  @Inject Codecs codecs;
  @Inject TimeSource time;
  @Inject NodeIdentity node;
  @Inject OutboxMetrics metrics;
  @Inject DeadMessageEvents deadMessageEvents;

  private final Watchdog watchdog = new Watchdog();
  private final RelayWarnings relayWarnings = new RelayWarnings();
  private final PreparedHoldWarnings preparedHolds = new PreparedHoldWarnings();
  private final LongTransactionWarnings longTransactions = new LongTransactionWarnings();

  /**
   * The connections of a worker's run of plain batch transactions: give each batch of the run the
   * same one, and close it when the run ends.
   */
  PlainConnections plainConnections() {
    return new PlainConnections(dataSources::dataSource);
  }

  /**
   * One batch; with a gate (a publisher's commit is under way), the claim goes first and the read
   * waits for the gate, so that it sees the published message (see {@link CommitGate}).
   *
   * @param plainConnections null for a batch in a JTA transaction; else the batch runs in a plain
   *     database transaction ({@link LocalTransaction}) on the connection these keep from the
   *     worker's last batch or a new one of the outbox's data source: only for a relay that does not
   *     use the worker's transaction, and only with a data source
   */
  CycleResult process(OutboxSettings settings, int partition, Relay relay, PlainConnections plainConnections,
      PartitionCursor cursor, CommitGate gate) throws Exception {
    long begun = System.nanoTime();
    Duration transactionTimeout = settings.transactionTimeout();
    // The claim may lapse when the transaction manager or the database ends the transaction: not before the
    // transaction timeout has passed since it began. Nothing is handed to the relay after this point.
    long leaseEnd = begun + leaseNanos(transactionTimeout);
    BatchTransaction tx = plainConnections != null
        ? LocalTransaction.begin(plainConnections, transactionTimeout, transactions, watchdog::after)
        : transactions.begin(transactionTimeout);
    ReadRows batch = null;
    try {
      LocalDateTime now = time.nowUtc();
      cursor.sweepIfDue(time.now());
      ReadRequest request = readRequest(settings, cursor);
      ClaimedRead claimed = gate == null
          ? tx.call(connection -> statements.claimAndRead(connection, settings.name(), partition, node.node(),
              node.instance(), now, FENCING ? transactionTimeout.toMillis() : 0, request))
          : claimThenRead(tx, settings, partition, now, transactionTimeout, request, gate);
      Claim claim = claimed.claim();
      if (!claim.claimed()) {
        lookForPreparedHolder(tx, settings, partition, claim);
        tx.commit();
        return CycleResult.notClaimed(claim.partitionCount(), claim.layoutVersion());
      }
      preparedHolds.claimed(settings.name(), partition);
      Read read = claimed.read();
      boolean layoutChanged = cursor.layoutChanged(claim.layoutVersion());
      if (!node.instance().equals(claim.previousInstance()) || layoutChanged) {
        // Someone else worked the partition since our last batch (or an admin operation changed it), or a change of
        // the partition count moved messages into it with the ids they had: what lies below the cursor is unknown,
        // so the read starts again at the first row (the read that came with the claim did, if the cursor was there
        // already).
        cursor.reset();
        if (!readRequest(settings, cursor).equals(request)) {
          read = null;
        }
      }
      batch = plan(tx, settings, partition, cursor, claim, read, now);
      longTransactions.observed(settings.name(), batch.read.readAtMicros(), claim.oldestRunningMicros(),
          () -> tx.call(dev.outboxer.cdi.internal.store.OpenTransactions::oldest));
      if (batch.plan.selected().isEmpty()) {
        Outcome outcome = tx.commit();
        if (outcome == Outcome.COMMITTED) {
          cursor.apply(batch.proposal(cursor, Long.MAX_VALUE));
        }
        return CycleResult.empty(claim.partitionCount(), claim.layoutVersion(), claim.fencingToken(),
            batch.read.waiting());
      }
      return relayAndFinish(settings, partition, relay, cursor, claim, batch, tx, leaseEnd);
    } catch (Exception | Error e) {
      // Also when the transaction manager rolled it back already (timeout): only this thread's rollback frees it.
      tx.release();
      if (batch != null && batch.relayed) {
        // The relay may have delivered some of it: the rows stay pending and go out again.
        LOG.log(Level.FINE, "Outbox '" + settings.name() + "', partition " + partition + ": the batch failed after the"
            + " relay had it; its messages will be delivered again", Failures.loggable(e));
      }
      throw e;
    }
  }

  /**
   * The partition could not be claimed: held by a live worker (nothing to say) or by a prepared
   * transaction nobody finishes (said, see {@link PreparedHoldWarnings}). Looked at every few seconds
   * at most, in the claim's transaction; a failure of the look is no failure of the batch.
   */
  private void lookForPreparedHolder(BatchTransaction tx, OutboxSettings settings, int partition, Claim claim) {
    if (partition >= claim.partitionCount() || !preparedHolds.checkDue(settings.name(), partition)) {
      return;
    }
    try {
      preparedHolds.checked(settings.name(), partition, tx.call(connection -> statements.preparedHolder(connection,
          settings.name(), partition)), time.now());
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.FINE, "Outbox '" + settings.name() + "', partition " + partition + ": could not look for a"
          + " prepared transaction holding the partition", e);
    }
  }

  /** The claim now, the read once the publisher's commit completed (or the gate gave up). */
  private ClaimedRead claimThenRead(BatchTransaction tx, OutboxSettings settings, int partition, LocalDateTime now,
      Duration transactionTimeout, ReadRequest request, CommitGate gate) throws Exception {
    Claim claim = tx.call(connection -> statements.claim(connection, settings.name(), partition, node.node(),
        node.instance(), now, FENCING ? transactionTimeout.toMillis() : 0, request.probeRunning()));
    if (!claim.claimed()) {
      return new ClaimedRead(claim, null);
    }
    gate.await();
    return new ClaimedRead(claim, tx.call(connection -> statements.read(connection, settings.name(), partition,
        request, now)));
  }

  /** Claims are valid for the transaction timeout; keep a tenth of it (at least 500 ms) as a safety margin. */
  static long leaseNanos(Duration transactionTimeout) {
    long total = transactionTimeout.toNanos();
    long margin = Math.max(Duration.ofMillis(500).toNanos(), total / 10);
    return Math.max(0, total - margin);
  }

  /** What the next read of the partition asks for, from the cursor as it stands. */
  private static ReadRequest readRequest(OutboxSettings settings, PartitionCursor cursor) {
    return new ReadRequest(settings.ordering(), cursor.scanFrom(), settings.batchSize(), cursor.needsRunningProbe());
  }

  /**
   * Plans the batch from the read that came with the claim, reading again where that one does not
   * do: it is missing (the cursor was reset), or a due retry lies below the cursor.
   */
  private ReadRows plan(BatchTransaction tx, OutboxSettings settings, int partition, PartitionCursor cursor,
      Claim claim, Read claimRead, LocalDateTime now) throws Exception {
    Read read = claimRead != null ? claimRead : read(tx, settings, partition, cursor, now);
    OptionalLong rewind = RelaySelection.rewindTarget(settings.ordering(), read.waiting(), cursor.rewindBelow(), now);
    if (rewind.isPresent()) {
      // A message whose retry has come lies below the cursor; the rest of its group was skipped while it waited.
      cursor.rewindTo(rewind.getAsLong());
      read = read(tx, settings, partition, cursor, now);
    }
    List<Long> leftBehind = cursor.leftBehind(read.rows());
    if (!leftBehind.isEmpty()) {
      LOG.warning("Outbox '" + settings.name() + "', partition " + partition + ": " + leftBehind.size() + " pending"
          + " message(s) lay below the partition's read position " + leftBehind.subList(0, Math.min(20,
          leftBehind.size())) + "; the periodic read from the first row found them and relays them now, possibly"
          + " after later messages of their group. This is a bug in Outboxer: please report it with this line.");
    }
    return new ReadRows(read, RelaySelection.of(settings.ordering(), read, settings.batchSize(), settings.batchSize(), now),
        claim);
  }

  private Read read(BatchTransaction tx, OutboxSettings settings, int partition, PartitionCursor cursor,
      LocalDateTime now) throws Exception {
    ReadRequest request = readRequest(settings, cursor);
    return tx.call(connection -> statements.read(connection, settings.name(), partition, request, now));
  }

  private CycleResult relayAndFinish(OutboxSettings settings, int partition, Relay relay, PartitionCursor cursor,
      Claim claim, ReadRows batch, BatchTransaction tx, long leaseEnd) throws Exception {
    return new Cycle(settings, partition, claim, batch, tx, leaseEnd).run(relay, cursor);
  }

  /**
   * The steps of one claimed batch after its read: decode the rows, relay them under the watchdog,
   * charge the failures, then either roll back (the relay doomed the transaction, took it off the
   * thread, or the claim lapsed) or finish and commit.
   */
  private final class Cycle {
    private final OutboxSettings settings;
    private final int partition;
    private final Claim claim;
    private final ReadRows batch;
    private final BatchTransaction tx;
    private final long leaseEnd;

    Cycle(OutboxSettings settings, int partition, Claim claim, ReadRows batch, BatchTransaction tx, long leaseEnd) {
      this.settings = settings;
      this.partition = partition;
      this.claim = claim;
      this.batch = batch;
      this.tx = tx;
      this.leaseEnd = leaseEnd;
    }

    CycleResult run(Relay relay, PartitionCursor cursor) throws Exception {
      Decoded decoded = decode();
      RelayRun run = decoded.records().isEmpty() ? RelayRun.NOTHING : relay(relay, decoded.records());
      List<ReportingRelayBatch.Failure> failed = new ArrayList<>(decoded.unreadable());
      failed.addAll(run.outcomes().failed());
      long lowestHeldBack = decoded.lowestHeldBack();
      for (OutboxRecord held : run.outcomes().heldBack()) {
        lowestHeldBack = Math.min(lowestHeldBack, held.id());
      }
      Instant now = time.now();
      Charges charges = charge(failed, now, run);
      // A relay must leave the worker's transaction on the worker's thread as it found it. One that suspended,
      // replaced or ended it left the claim in a transaction nobody will finish: without this, the partition would
      // wait for the transaction timeout with nothing said.
      String tampering = decoded.records().isEmpty() ? null : tx.tampering();
      boolean claimHeld = tampering == null && relayBatchClaimHeld(tx, leaseEnd);
      boolean markedForRollback = claimHeld && !tx.activeOnThisThread();
      try {
        if (!claimHeld || markedForRollback) {
          return rollBack(decoded, run, charges, tampering, markedForRollback, TimeSource.toUtc(now));
        }
        return finishAndCommit(cursor, decoded, run, charges, lowestHeldBack, TimeSource.toUtc(now));
      } finally {
        // A step that threw before it said what became of the records: the caller rolls the batch back.
        run.settled(RecordOutcome.Kind.ROLLED_BACK, List.of());
      }
    }

    /** The selected rows as records; a row whose stored form cannot be read fails alone and holds back its unit. */
    private Decoded decode() {
      List<OutboxRecord> records = new ArrayList<>(batch.plan.selected().size());
      List<ReportingRelayBatch.Failure> unreadable = new ArrayList<>();
      Set<Object> brokenUnits = new HashSet<>();
      long lowestHeldBack = Long.MAX_VALUE;
      for (StoredMessage row : batch.plan.selected()) {
        Object unit = OrderingUnits.unitOf(settings.ordering(), row.groupKey());
        if (unit != null && brokenUnits.contains(unit)) {
          lowestHeldBack = Math.min(lowestHeldBack, row.id());
          continue;
        }
        try {
          Map<String, String> headers = codecs.decodeHeaders(row.headers());
          records.add(new OutboxRecord(row.id(), settings.name(), partition, row.groupKey(), row.type(),
              row.contentType(), row.payload(), headers, row.attempts(), TimeSource.fromUtc(row.createdAt())));
        } catch (RuntimeException corrupt) {
          OutboxRecord placeholder = new OutboxRecord(row.id(), settings.name(), partition, row.groupKey(),
              row.type(), row.contentType(), new byte[0], Map.of(), row.attempts(), TimeSource.fromUtc(row.createdAt()));
          unreadable.add(new ReportingRelayBatch.Failure(placeholder, new IllegalStateException("The stored headers of"
              + " message " + row.id() + " cannot be read: " + Failures.describe(corrupt), corrupt)));
          if (unit != null) {
            brokenUnits.add(unit);
          }
        }
      }
      return new Decoded(records, unreadable, lowestHeldBack);
    }

    /**
     * Hands the records to the relay while the claim holds, for at most {@code relay-timeout}, and
     * applies the relay contract to what it reported: whatever it throws or reports, the outcomes
     * come out by the rules.
     */
    private RelayRun relay(Relay relay, List<OutboxRecord> records) {
      // The deadline is real time, not the application clock: it bounds how long this thread waits.
      Instant deadline = Instant.now().plus(settings.relayTimeout());
      ReportingRelayBatch relayBatch = new ReportingRelayBatch(settings.name(), partition, settings.ordering(), records,
          claim.fencingToken(), deadline, () -> relayBatchClaimHeld(tx, leaseEnd));
      long started = System.nanoTime();
      Throwable thrown = null;
      boolean timedOut = false;
      Watchdog.Armed armed = watchdog.arm(settings.relayTimeout(), relayBatch::close);
      batch.relayed = true;
      try {
        relay.relay(relayBatch);
      } catch (Throwable failure) {
        thrown = failure;
      } finally {
        relayBatch.close();
        if (armed.disarm()) {
          timedOut = true;
          thrown = new RelayTimeoutException("The relay '" + settings.relay() + "' of outbox '" + settings.name()
              + "' did not report within " + settings.key("relay-timeout") + "="
              + Setting.formatDuration(settings.relayTimeout()), thrown);
        }
      }
      Duration relayTime = Duration.ofNanos(System.nanoTime() - started);
      Throwable unreported = thrown != null ? thrown
          : new IllegalStateException("The relay '" + settings.relay() + "' returned without reporting an outcome");
      ReportingRelayBatch.Outcomes outcomes = relayBatch.evaluate(unreported);
      relayWarnings.brokenRelay(settings, partition, thrown, timedOut, outcomes, relayBatch.claimLost());
      if (relayBatch.claimLost()) {
        LOG.warning("Outbox '" + settings.name() + "', partition " + partition + ": the claim with fencing token "
            + claim.fencingToken() + " lapsed while the relay was working (transaction timed out, paused JVM?);"
            + " nothing more of the batch was handed to the relay, and nothing of it is committed");
      }
      // What the relay threw is its own failure (dead-on applies to it); after a timeout it is the interrupt's echo.
      return new RelayRun(relayBatch, outcomes, relayTime, timedOut, timedOut ? null : thrown);
    }

    /**
     * An attempt for each failure: its retry after the backoff, or its death after max-attempts, or at once for a
     * permanent failure of the relay's ({@link PermanentFailures}).
     */
    private Charges charge(List<ReportingRelayBatch.Failure> failed, Instant now, RelayRun run) {
      List<BatchStatements.Failure> failures = new ArrayList<>(failed.size());
      Set<Long> permanent = new HashSet<>();
      Instant earliestRetry = null;
      int died = 0;
      for (ReportingRelayBatch.Failure failure : failed) {
        int attempts = failure.record().attempts() + 1;
        String permanentReason = run.givenByRelay(failure) ? PermanentFailures.reason(failure.cause(), settings) : null;
        LocalDateTime next = null;
        if (permanentReason != null || attempts >= settings.maxAttempts()) {
          died++;
        } else {
          Instant retryAt = now.plus(settings.backoffAfter(attempts));
          earliestRetry = earliestRetry == null || retryAt.isBefore(earliestRetry) ? retryAt : earliestRetry;
          next = TimeSource.toUtc(retryAt);
        }
        if (permanentReason != null) {
          permanent.add(failure.record().id());
        }
        failures.add(new BatchStatements.Failure(failure.record().id(), attempts, next, permanentReason == null
            ? Failures.describe(failure.cause()) : PermanentFailures.text(permanentReason, failure.cause())));
      }
      return new Charges(failed, failures, earliestRetry, died, permanent);
    }

    /**
     * Nothing of the batch can commit: the relay (or an application handler it called) marked the
     * transaction for rollback or took it off the thread, or the claim lapsed. The failures the relay
     * reported still count, in a transaction of their own; records it left unreported are not
     * charged an attempt (they were never tried to the end, or the claim was taken away from them).
     * Except after a relay timeout: the first unreported record (not held back) is the one the relay
     * was stuck on, and it is charged, as it would be in a batch that commits. Otherwise a record
     * that always outlasts the timeout (a slow handler of the local relay, which then dooms the
     * transaction) would be read again forever without an attempt counted.
     */
    private CycleResult rollBack(Decoded decoded, RelayRun run, Charges charges, String tampering,
        boolean markedForRollback, LocalDateTime nowUtc) throws BatchRolledBackException {
      boolean tamperedTransactionOver = tampering == null || tx.rollBackAfterTampering();
      if (tampering == null) {
        tx.rollback();
      }
      Charges reported = charges.reportedOrTimedOut(run.timedOut());
      boolean recorded = recordFailuresAlone(settings, partition, reported.failures(), nowUtc);
      if (recorded) {
        deathsCommitted(settings, partition, reported, nowUtc);
      }
      boolean claimLapsed = tampering == null && !markedForRollback;
      run.settled(claimLapsed ? RecordOutcome.Kind.CLAIM_LAPSED : RecordOutcome.Kind.ROLLED_BACK,
          recorded ? reported.failed() : List.of());
      int confirmed = run.outcomes().confirmed().size();
      if (tampering != null) {
        throw new BatchRolledBackException("the relay '" + settings.relay() + "' returned with the worker's"
            + " transaction " + tampering + " (a relay must leave the transaction it is called in on the worker's"
            + " thread, as it found it); nothing of the batch is committed and its " + confirmed
            + " confirmed message(s) are delivered again" + (tamperedTransactionOver ? ""
            : ". The transaction holds the partition until the transaction manager rolls it back after "
            + settings.key(CoreSettings.TRANSACTION_TIMEOUT) + "=" + Setting.formatDuration(settings.transactionTimeout())
            + " (this platform gives applications no TransactionManager to end it sooner)"));
      }
      if (markedForRollback && (recorded || reported.failures().isEmpty())) {
        // Expected when a handler fails inside the worker's transaction: the failed message backs off on its own,
        // the rest of the batch goes out again at once; the partition does not back off.
        LOG.fine("Outbox '" + settings.name() + "', partition " + partition + ": the relay marked the batch's"
            + " transaction for rollback; " + reported.failures().size() + " failure(s) recorded, the other "
            + (decoded.records().size() - reported.failures().size()) + " message(s) are read again");
        return CycleResult.relayed(claim, decoded.records().size(), 0, reported.failures().size(), reported.died(),
            charges.earliestRetry(), run.time(), true, batch.read.waiting());
      }
      throw new BatchRolledBackException("the claim with fencing token " + claim.fencingToken() + " lapsed while the"
          + " relay had the batch (its transaction ended or its lease of " + settings.key(CoreSettings.TRANSACTION_TIMEOUT) + "="
          + Setting.formatDuration(settings.transactionTimeout()) + " ran out); nothing of it is committed and its "
          + confirmed + " confirmed message(s) are delivered again");
    }

    /** Deletes what the relay confirmed, records the failures, commits, and says what the commit did. */
    private CycleResult finishAndCommit(PartitionCursor cursor, Decoded decoded, RelayRun run, Charges charges,
        long lowestHeldBack, LocalDateTime nowUtc) throws Exception {
      List<Long> relayedIds = run.outcomes().confirmed().stream().map(OutboxRecord::id).toList();
      int deleted = tx.call(connection -> statements.finish(connection, relayedIds, charges.failures(), nowUtc));
      PartitionCursor.Proposal proposal = batch.proposal(cursor, lowestHeldBack);
      if (LOG.isLoggable(Level.FINEST)) {
        LOG.finest("Outbox '" + settings.name() + "', partition " + partition + ": read from " + cursor.scanFrom()
            + " (sequence " + claim.sequenceValue() + "), " + batch.read.scanned() + " scanned up to "
            + batch.read.lastScannedId() + ", " + relayedIds.size() + " confirmed; next read from "
            + proposal.scanFrom() + " (settled up to " + proposal.settled() + ")");
      }
      int handed = decoded.records().size();
      switch (tx.commit()) {
        case COMMITTED -> {
          cursor.apply(proposal);
          if (deleted < relayedIds.size()) {
            LOG.fine("Outbox '" + settings.name() + "', partition " + partition + ": " + (relayedIds.size() - deleted)
                + " confirmed message(s) were no longer there to delete");
          }
          run.settled();
          deathsCommitted(settings, partition, charges, nowUtc);
          return CycleResult.relayed(claim, handed, deleted, charges.failures().size(), charges.died(),
              charges.earliestRetry(), run.time(), batch.plan.reachedUpTo() != Long.MAX_VALUE, batch.read.waiting());
        }
        case ROLLED_BACK -> {
          boolean recorded = recordFailuresAlone(settings, partition, charges.failures(), nowUtc);
          run.settled(RecordOutcome.Kind.ROLLED_BACK, recorded ? charges.failed() : List.of());
          if (recorded) {
            deathsCommitted(settings, partition, charges, nowUtc);
          }
          throw new BatchRolledBackException("the commit of the batch failed and nothing of it was committed ("
              + tx.failure() + "); its " + relayedIds.size() + " relayed message(s) are delivered again",
              tx.failure());
        }
        default -> {
          cursor.reset();
          metrics.commitUnknown(settings.name());
          List<Long> ids = decoded.records().stream().map(OutboxRecord::id).toList();
          LOG.log(Level.WARNING, "Outbox '" + settings.name() + "', partition " + partition + ": the outcome of the"
              + " batch's commit is unknown (" + tx.failure() + "). It may have committed, in part or in whole: the"
              + " messages " + ids + " (" + relayedIds.size() + " confirmed by the relay) may be delivered again.",
              tx.failure());
          run.settled(RecordOutcome.Kind.COMMIT_UNKNOWN, List.of());
          return CycleResult.relayed(claim, handed, 0, 0, 0, charges.earliestRetry(), run.time(), true, List.of());
        }
      }
    }
  }

  /** The selected rows as the relay gets them, the rows that failed unread, and the lowest id held back behind them. */
  private record Decoded(List<OutboxRecord> records, List<ReportingRelayBatch.Failure> unreadable, long lowestHeldBack) {}

  /**
   * What the relay made of a batch, by the relay contract, and how long it took.
   *
   * @param batch the batch the relay had, to tell its listeners the final outcomes; {@code null} if none was relayed
   */
  private record RelayRun(ReportingRelayBatch batch, ReportingRelayBatch.Outcomes outcomes, Duration time, boolean timedOut,
      Throwable thrown) {
    static final RelayRun NOTHING = new RelayRun(null,
        new ReportingRelayBatch.Outcomes(List.of(), List.of(), List.of(), List.of()), Duration.ZERO, false, null);

    /**
     * Whether a failure is the relay's own, reported with {@code fail} or thrown by {@code relay}, rather than one the
     * core made up (no report in time, no report at all, an unreadable stored row): only the relay's own can be
     * permanent.
     */
    boolean givenByRelay(ReportingRelayBatch.Failure failure) {
      return batch != null && (failure.reported() || thrown != null && failure.cause() == thrown);
    }

    /** Tells the batch's listeners every record's final outcome: all as the contract gave them (committed). */
    void settled() {
      if (batch != null) {
        batch.settled(outcomes.settled());
      }
    }

    /**
     * Tells the batch's listeners every record's final outcome when nothing of the batch committed: a failure
     * recorded on its own stays a failure, a held-back record stays held back, every other record is {@code kind}.
     */
    void settled(RecordOutcome.Kind kind, List<ReportingRelayBatch.Failure> recordedAlone) {
      if (batch == null) {
        return;
      }
      Set<Long> recorded = new HashSet<>();
      recordedAlone.forEach(failure -> recorded.add(failure.record().id()));
      batch.settled(outcomes.settled().stream()
          .map(outcome -> outcome.kind() == RecordOutcome.Kind.HELD_BACK && kind != RecordOutcome.Kind.CLAIM_LAPSED
              || outcome.charged() && recorded.contains(outcome.record().id()) ? outcome : outcome.as(kind))
          .toList());
    }
  }

  /**
   * The attempts charged for a batch's failures.
   *
   * @param failed the failures, in the order of {@code failures}
   * @param failures what is recorded for each: attempts, next attempt (null once dead), error text
   * @param permanent the ids of the records whose failures were permanent
   */
  private record Charges(List<ReportingRelayBatch.Failure> failed, List<BatchStatements.Failure> failures,
      Instant earliestRetry, int died, Set<Long> permanent) {

    /**
     * The charges that stand when the batch rolls back: the failures the relay reported, and after
     * a relay timeout the first unreported record (the one the relay was stuck on).
     */
    Charges reportedOrTimedOut(boolean timedOut) {
      List<ReportingRelayBatch.Failure> keptFailed = new ArrayList<>();
      List<BatchStatements.Failure> kept = new ArrayList<>();
      boolean timeoutCharged = false;
      for (int i = 0; i < failed.size(); i++) {
        boolean chargeTimeout = timedOut && !timeoutCharged && !failed.get(i).reported();
        if (failed.get(i).reported() || chargeTimeout) {
          keptFailed.add(failed.get(i));
          kept.add(failures.get(i));
          timeoutCharged |= chargeTimeout;
        }
      }
      int keptDied = (int) kept.stream().filter(failure -> failure.nextAttemptAt() == null).count();
      return new Charges(keptFailed, kept, earliestRetry, keptDied, permanent);
    }
  }

  private static boolean relayBatchClaimHeld(BatchTransaction tx, long leaseEnd) {
    return !FENCING || tx.active() && System.nanoTime() - leaseEnd < 0;
  }

  /**
   * Records failed attempts in a transaction of their own after the batch's own transaction could
   * not commit, under a new claim of the partition (skipped if another worker holds it by now: it
   * will deliver those messages itself). Returns whether they were recorded.
   */
  private boolean recordFailuresAlone(OutboxSettings settings, int partition, List<BatchStatements.Failure> failures,
      LocalDateTime now) {
    if (failures.isEmpty()) {
      return false;
    }
    try {
      return transactions.inNewTransaction(settings.transactionTimeout(), () -> {
        Claim claim = jdbc.call(connection -> statements.claim(connection, settings.name(), partition, node.node(),
            node.instance(), now, FENCING ? settings.transactionTimeout().toMillis() : 0));
        if (claim.claimed()) {
          jdbc.call(connection -> {
            statements.recordFailures(connection, failures, now);
            return null;
          });
        }
        return claim.claimed();
      });
    } catch (Exception e) {
      LOG.log(Level.FINE, "Outbox '" + settings.name() + "', partition " + partition + ": recording the failures of"
          + " a rolled-back batch failed too; they are attempted again", e);
      return false;
    }
  }

  /**
   * The deaths of a batch are committed (with the batch, or its failures recorded on their own): one
   * WARNING per message that died, without a stack trace (the failure is expected and its text is
   * kept as the message's last error), then the application's observers of {@link DeadMessage}.
   * Never called for failures that were not committed.
   *
   * @param charges the batch's failures as recorded
   * @param nowUtc when they were recorded
   */
  private void deathsCommitted(OutboxSettings settings, int partition, Charges charges, LocalDateTime nowUtc) {
    List<DeadMessage> dead = new ArrayList<>();
    for (int i = 0; i < charges.failures().size(); i++) {
      BatchStatements.Failure failure = charges.failures().get(i);
      if (failure.nextAttemptAt() != null) {
        continue;
      }
      OutboxRecord record = charges.failed().get(i).record();
      String group = record.groupKey();
      String why = charges.permanent().contains(failure.id()) ? "its failure is permanent"
          : settings.key(CoreSettings.MAX_ATTEMPTS) + "=" + settings.maxAttempts();
      LOG.warning("Outbox '" + settings.name() + "', partition " + partition + ": message " + failure.id()
          + (group == null ? " (no group)" : " of group '" + LogText.escaped(group) + "'") + " is dead after "
          + failure.attempts() + " failed attempt(s) (" + why + "); its group moves on. Last error: " + failure.error()
          + ". Revive it with OutboxAdmin.retryDead or remove it with OutboxAdmin.discard.");
      dead.add(new DeadMessage(failure.id(), settings.name(), group, record.type(), failure.attempts(),
          failure.error(), record.createdAt(), TimeSource.fromUtc(nowUtc)));
    }
    try {
      deadMessageEvents.died(dead, partition);
    } catch (RuntimeException | LinkageError failure) {
      // The batch is committed: nothing here may make it look failed.
      LOG.log(Level.WARNING, "Outbox '" + settings.name() + "', partition " + partition + ": the DeadMessage events of"
          + " " + dead.size() + " dead message(s) could not be fired: " + Failures.describe(failure),
          Failures.loggable(failure));
    }
  }

  void shutdown() {
    watchdog.close();
  }

  /** Whether a batch failure was a deadlock the database broke. */
  static boolean isDeadlock(Throwable failure) {
    return Sql.isDeadlock(failure);
  }

  /** What one batch read, and what the cursor becomes if it commits. */
  private static final class ReadRows {
    final Read read;
    final RelaySelection plan;
    final Claim claim;
    boolean relayed;

    ReadRows(Read read, RelaySelection plan, Claim claim) {
      this.read = read;
      this.plan = plan;
      this.claim = claim;
    }

    PartitionCursor.Proposal proposal(PartitionCursor cursor, long lowestHeldBack) {
      return cursor.propose(claim.sequenceValue(), claim.runningTransactions(), plan.reachedUpTo(),
          lowestHeldBack);
    }
  }
}
