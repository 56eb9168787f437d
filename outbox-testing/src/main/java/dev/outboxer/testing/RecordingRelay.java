package dev.outboxer.testing;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A relay that records what it is handed and what it confirms, and fails on command. Select it with
 * {@code outbox.<name>.relay=recording}. Delivery is sequential: held-back records are skipped, the
 * way the Relay contract asks.
 *
 * <p>It also watches the one-worker-per-partition rule: {@link #maxConcurrentBatchesPerPartition()}
 * is the most batches of one partition it ever saw at the same time.
 */
@ApplicationScoped
@Named("recording")
public class RecordingRelay implements Relay {

  /** What the relay does with a record it is handed. */
  public enum Action { CONFIRM, FAIL, NO_OUTCOME }

  /** When a batch of a partition was in the relay, in System.nanoTime. */
  public record BatchSpan(String outbox, int partition, long startNanos, long endNanos) {}

  private final List<OutboxRecord> handed = new ArrayList<>();
  private final List<OutboxRecord> confirmed = new ArrayList<>();
  private final Map<Long, Long> firstHandedNanos = new ConcurrentHashMap<>();
  private final Map<Long, Long> confirmedNanos = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> activeBatches = new ConcurrentHashMap<>();
  private final AtomicInteger maxConcurrent = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final List<BatchSpan> spans = new ArrayList<>();
  private final AtomicInteger commitsToFail = new AtomicInteger();

  private volatile Predicate<OutboxRecord> failWhen = record -> false;
  private volatile Predicate<OutboxRecord> noOutcomeWhen = record -> false;
  private volatile Exception throwOnce;
  private volatile boolean hangOnce;
  private volatile Duration delayPerBatch = Duration.ZERO;
  private volatile CountDownLatch hangStarted = new CountDownLatch(1);

  @Override
  public void relay(RelayBatch batch) throws Exception {
    batches.incrementAndGet();
    long start = System.nanoTime();
    String partitionKey = batch.outbox() + "/" + batch.partition();
    int active = activeBatches.computeIfAbsent(partitionKey, key -> new AtomicInteger()).incrementAndGet();
    maxConcurrent.accumulateAndGet(active, Math::max);
    try {
      synchronized (this) {
        handed.addAll(batch.records());
      }
      long now = System.nanoTime();
      batch.records().forEach(record -> firstHandedNanos.putIfAbsent(record.id(), now));
      if (!delayPerBatch.isZero()) {
        Thread.sleep(delayPerBatch.toMillis());
      }
      if (hangOnce) {
        hangOnce = false;
        hangStarted.countDown();
        new CountDownLatch(1).await(); // until the worker's watchdog interrupts us
      }
      Exception toThrow = throwOnce;
      if (toThrow != null) {
        throwOnce = null;
        throw toThrow;
      }
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        switch (actionFor(record)) {
          case FAIL -> batch.fail(record, new IllegalStateException("induced failure of message " + record.id()));
          case NO_OUTCOME -> { }
          case CONFIRM -> {
            batch.confirm(record);
            confirmedNanos.putIfAbsent(record.id(), System.nanoTime());
            synchronized (this) {
              confirmed.add(record);
              notifyAll();
            }
          }
        }
      }
      if (commitsToFail.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
        failTheCommit();
      }
    } finally {
      activeBatches.get(partitionKey).decrementAndGet();
      synchronized (this) {
        spans.add(new BatchSpan(batch.outbox(), batch.partition(), start, System.nanoTime()));
      }
    }
  }

  /** Makes the worker's commit fail after this batch was delivered, as a database failing at commit would. */
  private static void failTheCommit() {
    jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
        .registerInterposedSynchronization(new jakarta.transaction.Synchronization() {
          @Override
          public void beforeCompletion() {
            throw new IllegalStateException("induced commit failure");
          }

          @Override
          public void afterCompletion(int status) {}
        });
  }

  /** The commit of the next batch fails after the relay delivered (and confirmed) it. */
  public void failCommitOfNextBatch() {
    failCommitOfNextBatches(1);
  }

  /** The commits of the next {@code count} batches fail after the relay delivered (and confirmed) them. */
  public void failCommitOfNextBatches(int count) {
    commitsToFail.set(count);
  }

  public synchronized List<BatchSpan> spans() {
    return List.copyOf(spans);
  }

  private Action actionFor(OutboxRecord record) {
    if (failWhen.test(record)) {
      return Action.FAIL;
    }
    return noOutcomeWhen.test(record) ? Action.NO_OUTCOME : Action.CONFIRM;
  }

  public void failWhen(Predicate<OutboxRecord> predicate) {
    failWhen = predicate;
  }

  public void noOutcomeWhen(Predicate<OutboxRecord> predicate) {
    noOutcomeWhen = predicate;
  }

  public void throwOnNextBatch(Exception exception) {
    throwOnce = exception;
  }

  /** The next batch blocks until its worker interrupts it; the returned latch opens when it started blocking. */
  public CountDownLatch hangOnNextBatch() {
    hangStarted = new CountDownLatch(1);
    hangOnce = true;
    return hangStarted;
  }

  public void delayEachBatch(Duration delay) {
    delayPerBatch = delay;
  }

  public synchronized List<OutboxRecord> handed() {
    return List.copyOf(handed);
  }

  public synchronized List<OutboxRecord> confirmed() {
    return List.copyOf(confirmed);
  }

  /** Confirmed record ids per group key, in confirmation order (duplicates included). */
  public synchronized Map<String, List<Long>> confirmedIdsByGroup() {
    Map<String, List<Long>> byGroup = new LinkedHashMap<>();
    for (OutboxRecord record : confirmed) {
      byGroup.computeIfAbsent(String.valueOf(record.groupKey()), key -> new ArrayList<>()).add(record.id());
    }
    return byGroup;
  }

  /** Nanos (System.nanoTime) when a record was first handed to this relay, or null. */
  public Long firstHandedNanos(long id) {
    return firstHandedNanos.get(id);
  }

  /** Nanos (System.nanoTime) when a record was first confirmed by this relay, or null. */
  public Long confirmedNanos(long id) {
    return confirmedNanos.get(id);
  }

  /** Batches being relayed right now, on any partition. */
  public int batchesInFlight() {
    return activeBatches.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  public int batches() {
    return batches.get();
  }

  public int maxConcurrentBatchesPerPartition() {
    return maxConcurrent.get();
  }

  /** Waits until at least {@code count} confirmations were recorded. */
  public synchronized boolean awaitConfirmed(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (confirmed.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  public synchronized void reset() {
    handed.clear();
    confirmed.clear();
    firstHandedNanos.clear();
    confirmedNanos.clear();
    activeBatches.clear();
    maxConcurrent.set(0);
    batches.set(0);
    spans.clear();
    commitsToFail.set(0);
    failWhen = record -> false;
    noOutcomeWhen = record -> false;
    throwOnce = null;
    hangOnce = false;
    delayPerBatch = Duration.ZERO;
  }
}
