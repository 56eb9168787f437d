package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.Durations;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.spi.Relay;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The worker of one partition on this node: runs batches while there is work, then says when it
 * wants to run again. How it is scheduled (an executor or an EJB timer) is not its business, but a
 * scheduler must never run one worker on two threads at once.
 */
final class PartitionWorker {

  private static final Logger LOG = Logger.getLogger(PartitionWorker.class.getName());
  /** Full batches are worked off back to back for at most this long, then the thread is given back. */
  private static final long SLICE_NANOS = Duration.ofSeconds(1).toNanos();

  private final OutboxSettings settings;
  private final int partition;
  private final Relay relay;
  private final BatchProcessor processor;
  private final OutboxMetrics metrics;
  private final TimeSource time;
  private int idleRuns;
  private Instant nextKnownRetry;
  private long failedBatches;
  private long failedBatchesNotBeforeNanos;

  PartitionWorker(OutboxSettings settings, int partition, Relay relay, BatchProcessor processor, OutboxMetrics metrics,
      TimeSource time) {
    this.settings = settings;
    this.partition = partition;
    this.relay = relay;
    this.processor = processor;
    this.metrics = metrics;
    this.time = time;
  }

  String outbox() {
    return settings.name();
  }

  int partition() {
    return partition;
  }

  /** The delay before the next run if a run ends unexpectedly. */
  Duration partitionDelayOnError() {
    return settings.pollInterval();
  }

  /** Works until the partition has no ready rows (or the slice is used up) and returns the delay before the next run. */
  Duration run(BooleanSupplier stopping) {
    long sliceEnd = System.nanoTime() + SLICE_NANOS;
    while (!stopping.getAsBoolean()) {
      long backingOff = failedBatchesNotBeforeNanos - System.nanoTime();
      if (failedBatches > 0 && backingOff > 0) {
        // Woken by a publish while backing off from failed batches: keep backing off.
        return Duration.ofNanos(backingOff);
      }
      BatchResult result;
      try {
        result = processor.process(settings, partition, relay);
      } catch (Exception e) {
        return batchFailed(e);
      }
      if (failedBatches > 0) {
        LOG.info("Outbox '" + settings.name() + "', partition " + partition + ": batches succeed again after "
            + failedBatches + " failure(s)");
        failedBatches = 0;
      }
      metrics.batch(settings.name(), result.confirmed(), result.failed(), result.died(), result.relayTime(), result.read() > 0);
      if (result.earliestRetry() != null && (nextKnownRetry == null || result.earliestRetry().isBefore(nextKnownRetry))) {
        nextKnownRetry = result.earliestRetry();
      }
      if (!result.claimed()) {
        // Another node works this partition; look again soon in case it goes away.
        idleRuns = 0;
        return settings.pollInterval();
      }
      if (result.read() == 0) {
        return idleDelay();
      }
      idleRuns = 0;
      if (result.read() < settings.batchSize()) {
        return untilRetry(settings.pollInterval());
      }
      if (System.nanoTime() > sliceEnd) {
        return Duration.ZERO;
      }
    }
    return Duration.ZERO;
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
   * A batch failed as a whole: the database is unreachable, or the commit failed (a broker refusing
   * an XA send at commit, say). Nothing of it happened, so no message can be blamed and none dies;
   * the partition backs off like a failing message would (backoff.min doubling to backoff.max),
   * and publishes on this node do not cut the backoff short.
   */
  private Duration batchFailed(Exception e) {
    failedBatches++;
    metrics.batchFailed(settings.name());
    Duration delay = settings.backoffAfter(failedBatches);
    failedBatchesNotBeforeNanos = System.nanoTime() + delay.toNanos();
    // Said once, then at 10, 100, 1000... failures in a row: an outage must not flood the log.
    boolean loud = failedBatches == 1 || Long.toString(failedBatches).matches("10+");
    LOG.log(loud ? Level.WARNING : Level.FINE, "Outbox '" + settings.name() + "', partition " + partition
        + ": the batch failed (" + failedBatches + " in a row) and nothing of it was committed; the partition is"
        + " read again in " + delay.toMillis() + "ms", e);
    return delay;
  }
}
