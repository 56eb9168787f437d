package dev.outboxer.testing;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.PermanentRelayFailure;
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
 * <p>Commands a test gives it, each until {@link #stopFailing()} or {@link #reset()}:
 * {@link #failNext(int)} (the next n records it is handed fail), {@link #failGroup(String)} (every
 * record of a group fails), {@link #failWhen(Predicate)}, {@link #noOutcomeWhen(Predicate)}, {@link
 * #throwOnNextBatch(Exception)}, {@link #hangOnNextBatch()}, {@link #delayEachBatch(Duration)} and
 * {@link #failCommitOfNextBatch()}. A failed record is reported with {@code RelayBatch.fail}, so
 * Outboxer retries it (after its backoff, measured on the application's clock) or dead-letters it,
 * and holds back the rest of its group meanwhile.
 *
 * <p>What it guarantees: every record handed and every record confirmed is in {@link #handed()}
 * and {@link #confirmed()} in the order it happened, duplicates included (a record is handed again
 * after a failure, and after a commit that failed); the await methods wake as soon as a
 * confirmation arrives. What it does not: it sends nothing anywhere, and one instance serves every
 * outbox that names it ({@link OutboxRecord#outbox()} tells them apart). It is thread-safe.
 *
 * <p>It also watches the one-worker-per-partition rule: {@link #maxConcurrentBatchesPerPartition()}
 * is the most batches of one partition it ever saw at the same time.
 */
@ApplicationScoped
@Named("recording")
public class RecordingRelay implements Relay {

  /** How long the await methods without a timeout wait. */
  public static final Duration DEFAULT_AWAIT = Duration.ofSeconds(10);

  /** What the relay does with a record it is handed. */
  public enum Action { CONFIRM, FAIL, FAIL_PERMANENTLY, NO_OUTCOME }

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

  private final AtomicInteger recordsToFail = new AtomicInteger();
  private final java.util.Set<String> failingGroups = ConcurrentHashMap.newKeySet();
  private volatile Predicate<OutboxRecord> failWhen = record -> false;
  private volatile Predicate<OutboxRecord> failPermanentlyWhen = record -> false;
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
        notifyAll();
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
          case FAIL_PERMANENTLY -> batch.fail(record, new PermanentRelayFailure("induced permanent failure of message "
              + record.id()));
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

  /** When each batch was in the relay, in the order the batches ended. */
  public synchronized List<BatchSpan> spans() {
    return List.copyOf(spans);
  }

  private Action actionFor(OutboxRecord record) {
    if (failPermanentlyWhen.test(record)) {
      return Action.FAIL_PERMANENTLY;
    }
    if (record.groupKey() != null && failingGroups.contains(record.groupKey())) {
      return Action.FAIL;
    }
    if (recordsToFail.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
      return Action.FAIL;
    }
    if (failWhen.test(record)) {
      return Action.FAIL;
    }
    return noOutcomeWhen.test(record) ? Action.NO_OUTCOME : Action.CONFIRM;
  }

  /**
   * The next {@code count} records the relay is handed (and that are not held back) fail, whatever
   * their outbox or group; the ones after are confirmed again. Replaces an earlier count.
   */
  public void failNext(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("failNext(" + count + "): the count cannot be negative");
    }
    recordsToFail.set(count);
  }

  /**
   * Every record of the group fails, on every attempt, until {@link #recoverGroup(String)} or {@link
   * #stopFailing()}: Outboxer retries the first one and holds back the rest of the group, while
   * other groups flow.
   */
  public void failGroup(String groupKey) {
    failingGroups.add(java.util.Objects.requireNonNull(groupKey, "groupKey"));
  }

  /** The group's records are confirmed again (from their next attempt on). */
  public void recoverGroup(String groupKey) {
    failingGroups.remove(groupKey);
  }

  /**
   * Ends every failure command: {@link #failNext}, {@link #failGroup}, {@link #failWhen}, {@link
   * #failPermanentlyWhen}, {@link #noOutcomeWhen}, a pending {@link #throwOnNextBatch}, {@link #failCommitOfNextBatches}. What was
   * recorded stays.
   */
  public void stopFailing() {
    recordsToFail.set(0);
    failingGroups.clear();
    failWhen = record -> false;
    failPermanentlyWhen = record -> false;
    noOutcomeWhen = record -> false;
    throwOnce = null;
    commitsToFail.set(0);
  }

  /** Every record the predicate matches fails (until {@link #stopFailing()}); replaces an earlier predicate. */
  public void failWhen(Predicate<OutboxRecord> predicate) {
    failWhen = predicate;
  }

  /**
   * Every record the predicate matches fails with a {@link PermanentRelayFailure} (until {@link #stopFailing()}):
   * Outboxer makes it dead at once, whatever {@code max-attempts} says, its group moves on, and the application's
   * observers of {@link dev.outboxer.DeadMessage} hear of it. Replaces an earlier predicate.
   */
  public void failPermanentlyWhen(Predicate<OutboxRecord> predicate) {
    failPermanentlyWhen = predicate;
  }

  /**
   * The relay reports nothing for the records the predicate matches, as a relay that lost track of
   * them would: Outboxer keeps them pending and hands them over again.
   */
  public void noOutcomeWhen(Predicate<OutboxRecord> predicate) {
    noOutcomeWhen = predicate;
  }

  /** The next batch ends with this exception before any record is reported: the whole batch is retried. */
  public void throwOnNextBatch(Exception exception) {
    throwOnce = exception;
  }

  /** The next batch blocks until its worker interrupts it; the returned latch opens when it started blocking. */
  public CountDownLatch hangOnNextBatch() {
    hangStarted = new CountDownLatch(1);
    hangOnce = true;
    return hangStarted;
  }

  /** Every batch waits this long before its records are reported (to widen race windows). */
  public void delayEachBatch(Duration delay) {
    delayPerBatch = delay;
  }

  /** Every record handed to the relay, in the order handed, repeats included. */
  public synchronized List<OutboxRecord> handed() {
    return List.copyOf(handed);
  }

  /** Every record the relay confirmed, in the order confirmed, duplicates included. */
  public synchronized List<OutboxRecord> confirmed() {
    return List.copyOf(confirmed);
  }

  /** The records of one outbox the relay confirmed, in the order confirmed. */
  public synchronized List<OutboxRecord> confirmed(String outbox) {
    return confirmed.stream().filter(record -> record.outbox().equals(outbox)).toList();
  }

  /**
   * Waits up to {@link #DEFAULT_AWAIT} until at least {@code count} records were confirmed, and
   * returns every record confirmed so far.
   *
   * @throws AssertionError when they were not, naming what was confirmed and what was handed
   */
  public List<OutboxRecord> awaitConfirmations(int count) throws InterruptedException {
    return awaitConfirmations(count, DEFAULT_AWAIT);
  }

  /** As {@link #awaitConfirmations(int)}, with a timeout of the test's choice. */
  public List<OutboxRecord> awaitConfirmations(int count, Duration timeout) throws InterruptedException {
    if (!awaitConfirmed(count, timeout)) {
      List<OutboxRecord> seen = confirmed();
      throw new AssertionError("Expected at least " + count + " confirmed records within " + timeout + ", got "
          + seen.size() + ": " + seen + "; handed so far: " + handed());
    }
    return confirmed();
  }

  /**
   * Waits up to {@link #DEFAULT_AWAIT} until at least {@code count} records were handed to the relay
   * (failed, confirmed or held back alike), and returns every record handed so far.
   *
   * @throws AssertionError when they were not
   */
  public List<OutboxRecord> awaitHanded(int count) throws InterruptedException {
    long deadline = System.nanoTime() + DEFAULT_AWAIT.toNanos();
    synchronized (this) {
      while (handed.size() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("Expected at least " + count + " records handed to the relay within "
              + DEFAULT_AWAIT + ", got " + handed.size() + ": " + handed);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return List.copyOf(handed);
    }
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

  /** How many batches the relay was handed. */
  public int batches() {
    return batches.get();
  }

  /** The most batches of one partition the relay ever had at the same time (1 while the rule holds). */
  public int maxConcurrentBatchesPerPartition() {
    return maxConcurrent.get();
  }

  /** Waits until at least {@code count} confirmations were recorded; false if the timeout passed first. */
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

  /** Forgets what was recorded and ends every failure command, as a new relay. */
  public synchronized void reset() {
    recordsToFail.set(0);
    failingGroups.clear();
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
    failPermanentlyWhen = record -> false;
    noOutcomeWhen = record -> false;
    throwOnce = null;
    hangOnce = false;
    delayPerBatch = Duration.ZERO;
  }
}
