package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.LogText;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.Durations;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.tx.PlainConnections;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.Relay;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The worker of one partition on this node: runs batches while there is work, then says when it
 * wants to run again. How it is scheduled (an executor or an EJB timer) is not its business, but a
 * scheduler must never run one worker on two threads at once: it owns the partition's read cursor.
 */
final class PartitionWorker {

  private static final Logger LOG = Logger.getLogger(PartitionWorker.class.getName());
  /** Full batches are worked off back to back for at most this long, then the thread is given back. */
  private static final long SLICE_NANOS = Duration.ofSeconds(1).toNanos();
  /** At most one warning about groups blocked by retries per partition per this interval. */
  private static final long BLOCKED_WARNING_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

  /** Told what each claim found about the partition layout in force. */
  interface LayoutListener {
    void observed(String outbox, int partition, int partitionCount, int layoutVersion);
  }

  private final OutboxSettings settings;
  private final int partition;
  private final Relay relay;
  /** Whether the batches run in plain database transactions (see {@link BatchProcessor#process}). */
  private final boolean plainTransactions;
  private final BatchProcessor processor;
  private final OutboxMetrics metrics;
  private final TimeSource time;
  private final LayoutListener layout;
  private final PartitionCursor cursor;
  private final PartitionActivity activity;
  private int idleRuns;
  private Instant nextKnownRetry;
  private long failedBatches;
  private long failedBatchesNotBeforeNanos;
  private long deadlocks;
  private long blockedWarnedNanos = System.nanoTime() - BLOCKED_WARNING_INTERVAL_NANOS;

  PartitionWorker(OutboxSettings settings, int partition, Relay relay, boolean plainTransactions,
      BatchProcessor processor, OutboxMetrics metrics, TimeSource time, LayoutListener layout, PartitionCursor cursor,
      PartitionActivity activity) {
    this.settings = settings;
    this.partition = partition;
    this.relay = relay;
    this.plainTransactions = plainTransactions;
    this.processor = processor;
    this.metrics = metrics;
    this.time = time;
    this.layout = layout;
    this.cursor = cursor;
    this.activity = activity;
  }

  String outbox() {
    return settings.name();
  }

  int partition() {
    return partition;
  }

  OutboxSettings settings() {
    return settings;
  }

  PartitionActivity activity() {
    return activity;
  }

  /** Works until the partition has no ready rows (or the slice is used up) and returns the delay before the next run. */
  Duration run(BooleanSupplier stopping) {
    return run(stopping, null);
  }

  /**
   * As {@link #run(BooleanSupplier)}; with a gate (the run was {@linkplain ScheduledWorker#prime
   * primed} by a publisher's commit), the first batch reads only once the gate completed.
   */
  Duration run(BooleanSupplier stopping, CommitGate gate) {
    long sliceEnd = System.nanoTime() + SLICE_NANOS;
    activity.runStarted();
    // Back-to-back plain batches share a connection; it goes back to the pool when the run ends.
    PlainConnections plainConnections = plainTransactions ? processor.plainConnections() : null;
    try {
      while (!stopping.getAsBoolean()) {
        long backingOff = failedBatchesNotBeforeNanos - System.nanoTime();
        if (failedBatches > 0 && backingOff > 0) {
          // Woken by a publish while backing off from failed batches: keep backing off.
          return Duration.ofNanos(backingOff);
        }
        CycleResult result;
        CommitGate batchGate = gate;
        gate = null;
        try {
          result = processor.process(settings, partition, relay, plainConnections, cursor, batchGate);
        } catch (Exception | LinkageError | AssertionError e) {
          return batchFailed(e);
        } finally {
          if (batchGate != null) {
            batchGate.abandon();
          }
        }
        afterBatch(result);
        if (!result.claimed()) {
          // Another node works this partition (or it is gone from the layout); look again soon in case it goes away.
          idleRuns = 0;
          return settings.pollInterval();
        }
        if (result.read() == 0 && !result.moreReady()) {
          return idleDelay();
        }
        idleRuns = 0;
        if (!result.moreReady()) {
          return untilRetry(settings.pollInterval());
        }
        if (System.nanoTime() > sliceEnd) {
          return Duration.ZERO;
        }
      }
      return Duration.ZERO;
    } finally {
      if (gate != null) {
        gate.abandon();
      }
      if (plainConnections != null) {
        plainConnections.close();
      }
      activity.runEnded();
    }
  }

  private void afterBatch(CycleResult result) {
    if (failedBatches > 0) {
      LOG.info("Outbox '" + settings.name() + "', partition " + partition + ": batches succeed again after "
          + failedBatches + " failure(s)");
      failedBatches = 0;
    }
    deadlocks = 0;
    activity.batch(result.claimed(), result.fencingToken());
    layout.observed(settings.name(), partition, result.partitionCount(), result.layoutVersion());
    metrics.batch(settings.name(), result.relayed(), result.failed(), result.died(), result.relayTime(), result.read() > 0);
    if (result.earliestRetry() != null && (nextKnownRetry == null || result.earliestRetry().isBefore(nextKnownRetry))) {
      nextKnownRetry = result.earliestRetry();
    }
    warnAboutBlockedGroups(result.waiting());
  }

  /**
   * While messages wait for their retry, their groups (the whole outbox in total ordering) are
   * held back: an operator should know, but once a minute per partition is enough.
   */
  private void warnAboutBlockedGroups(java.util.List<dev.outboxer.cdi.internal.store.BatchStatements.Waiting> waiting) {
    if (waiting.isEmpty() || System.nanoTime() - blockedWarnedNanos < BLOCKED_WARNING_INTERVAL_NANOS) {
      return;
    }
    java.time.LocalDateTime now = TimeSource.toUtc(time.now());
    java.util.List<dev.outboxer.cdi.internal.store.BatchStatements.Waiting> blocking = waiting.stream()
        .filter(row -> row.nextAttemptAt().isAfter(now)).toList();
    if (blocking.isEmpty()) {
      return;
    }
    blockedWarnedNanos = System.nanoTime();
    var first = blocking.get(0);
    LOG.warning("Outbox '" + settings.name() + "', partition " + partition + ": " + blocking.size() + " message(s)"
        + " wait for a retry and hold back the rest of their group" + (settings.ordering() == dev.outboxer.Ordering.TOTAL
        ? " (total ordering: the whole outbox)" : "") + ", for example message " + first.id()
        + (first.groupKey() == null ? "" : " of group '" + LogText.escaped(first.groupKey()) + "'") + ", next attempt at "
        + first.nextAttemptAt() + "Z. OutboxAdmin.blockedGroups(\"" + settings.name() + "\", n) lists them with their"
        + " last error. (Said at most once a minute per partition.)");
  }

  /** Idle polling slows down, doubling from poll-interval to max-poll-interval. Publishing on this node wakes it anyway. */
  private Duration idleDelay() {
    idleRuns = Math.min(idleRuns + 1, 64);
    return untilRetry(Durations.doubling(settings.pollInterval(), settings.maxPollInterval(), idleRuns));
  }

  /** Never sleep past a retry time this worker knows about. */
  private Duration untilRetry(Duration delay) {
    if (nextKnownRetry == null) {
      return delay;
    }
    Duration untilRetry = Duration.between(time.now(), nextKnownRetry);
    if (untilRetry.isNegative() || untilRetry.isZero()) {
      nextKnownRetry = null;
      return delay;
    }
    return untilRetry.compareTo(delay) < 0 ? untilRetry : delay;
  }

  /**
   * A batch failed as a whole: the database is unreachable, the commit failed (a broker refusing an
   * XA send at commit, say), or the claim lapsed. Nothing of it was committed, so no message can be
   * blamed for it; the partition backs off like a failing message would (backoff.min doubling to
   * backoff.max), and publishes on this node do not cut the backoff short. A deadlock is retried at
   * once, a few times, and said for what it is.
   */
  private Duration batchFailed(Throwable e) {
    activity.failed(e);
    if (Sql.isDeadlock(e) && deadlocks < 3) {
      deadlocks++;
      metrics.deadlock(settings.name());
      LOG.log(Level.INFO, "Outbox '" + settings.name() + "', partition " + partition + ": the database broke a"
          + " deadlock by rolling back this partition's batch; nothing of it was committed and it is retried now", e);
      return Duration.ofMillis(10L * deadlocks);
    }
    failedBatches++;
    metrics.batchFailed(settings.name());
    Duration delay = settings.backoffAfter(failedBatches);
    failedBatchesNotBeforeNanos = System.nanoTime() + delay.toNanos();
    // Said once, then at 10, 100, 1000... failures in a row: an outage must not flood the log.
    boolean loud = failedBatches == 1 || Long.toString(failedBatches).matches("10+");
    String what = e instanceof BatchRolledBackException ? e.getMessage()
        : "the batch failed and nothing of it was committed (" + Failures.describe(e) + ")";
    // The cause in one line, not a stack trace: a broker or database outage is expected, and its trace says nothing
    // more to an operator. The trace goes to FINE.
    LOG.log(loud ? Level.WARNING : Level.FINE, "Outbox '" + settings.name() + "', partition " + partition + ": "
        + what + "; " + failedBatches + " failed batch(es) in a row, the partition is read again in "
        + delay.toMillis() + "ms");
    LOG.log(Level.FINE, "The failed batch of outbox '" + settings.name() + "', partition " + partition, Failures.loggable(e));
    return delay;
  }
}
