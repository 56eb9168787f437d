package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Synchronization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Regression tests of issue 11 ("What happens today" 5 and 6; "Deliver" 5): on MariaDB the worker
 * locks only the rows of its own batch, so an unrelated publish never waits for a batch and two
 * partitions' batches never deadlock; {@code serialize-writes} locks per group, so unrelated groups
 * never deadlock against the application's own row locks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbLockingTest {

  private static final TestDatabase DATABASE = TestDatabase.MARIADB;
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int DRAIN_PARTITIONS = 4;

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxMetricsProbe metrics;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private CountDownLatch release;
  private LogCapture logs;
  /** The tests' logging configuration passes WARNING and worse only; deadlocks are said at INFO. */
  private final java.util.logging.Logger workerLog =
      java.util.logging.Logger.getLogger("dev.outboxer.cdi.internal.work.PartitionWorker");

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.drain.relay", "scripted");
    config.put("outbox.drain.partitions", String.valueOf(DRAIN_PARTITIONS));
    config.put("outbox.drain.batch-size", "20");
    config.put("outbox.drain.poll-interval", "50ms");
    config.put("outbox.drain.max-poll-interval", "200ms");
    config.put("outbox.drain.backoff.min", "100ms");
    config.put("outbox.drain.backoff.max", "100ms");
    config.put("outbox.serial.relay", "scripted");
    config.put("outbox.serial.serialize-writes", "true");
    container = OutboxTestContainer.builder(DATABASE).config(config)
        .beans(ScriptedRelay.class, OutboxMetricsProbe.class).start();
    outbox = container.select(Outbox.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  @AfterAll
  void stop() {
    threads.shutdownNow();
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void clean() {
    logs = LogCapture.start();
    workerLog.setLevel(Level.INFO);
    ScriptedRelay.reset();
    Rows.clear(DATABASE);
    release = new CountDownLatch(1);
  }

  @AfterEach
  void quiet() {
    release.countDown();
    ScriptedRelay.reset();
    Rows.clear(DATABASE);
    workerLog.setLevel(null);
    logs.close();
  }

  // ---- today 5: the drain's DELETE locks rows of other partitions and the insert gap ----

  @Test
  void a_publish_completes_within_1s_while_the_relay_holds_a_batch_of_another_partition() throws Exception {
    CountDownLatch holding = new CountDownLatch(1);
    AtomicBoolean held = new AtomicBoolean();
    ScriptedRelay.script((batch, node) -> {
      if (batch.partition() == 0 && held.compareAndSet(false, true)) {
        ScriptedRelay.sendAll(batch, node);
        holding.countDown();
        release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      } else {
        ScriptedRelay.sendAll(batch, node);
      }
    });
    assertPublishToPartition1IsNotHeldUp(holding);
  }

  @Test
  void a_publish_completes_within_1s_while_a_batch_of_another_partition_commits_its_deletes() throws Exception {
    CountDownLatch holding = new CountDownLatch(1);
    AtomicBoolean held = new AtomicBoolean();
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.sendAll(batch, node);
      if (batch.partition() == 0 && held.compareAndSet(false, true)) {
        // Holds the worker's transaction after its DELETE ran, just before it commits.
        jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
            .registerInterposedSynchronization(new Synchronization() {
              @Override
              public void beforeCompletion() {
                holding.countDown();
                try {
                  release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }

              @Override
              public void afterCompletion(int status) {}
            });
      }
    });
    assertPublishToPartition1IsNotHeldUp(holding);
  }

  private void assertPublishToPartition1IsNotHeldUp(CountDownLatch holding) throws Exception {
    // A backlog in partition 0 (and some rows in partition 1), so that the batch deletes real rows.
    container.inTransaction(() -> {
      for (int i = 0; i < 20; i++) {
        outbox.publish("drain", Headered.key(keyIn(0, "backlog-" + i)));
      }
      outbox.publish("drain", Headered.key(keyIn(1, "early")));
    });
    assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a batch of partition 0 is held").isTrue();

    long started = System.nanoTime();
    CompletableFuture<Long> publish = CompletableFuture.supplyAsync(
        () -> inTransaction(() -> outbox.publish("drain", Headered.key(keyIn(1, "late")))), threads);
    String waited = null;
    try {
      publish.get(1, TimeUnit.SECONDS);
    } catch (TimeoutException slow) {
      waited = "the publish was still waiting after 1s";
    }
    release.countDown();
    long id = publish.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertThat(waited).as("publish of message " + id + " to partition 1 took " + millis + "ms in all").isNull();
  }

  @Test
  void batches_of_several_partitions_never_deadlock_and_nothing_is_relayed_twice() throws Exception {
    // Every fifth message fails its first attempt: its batch then updates a row after deleting the others.
    // Each batch holds its locks a moment before it commits, so that the partitions' transactions overlap.
    ScriptedRelay.script((batch, node) -> {
      for (dev.outboxer.spi.OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (record.attempts() == 0 && record.id() % 5 == 0) {
          batch.fail(record, new IllegalStateException("first attempt fails"));
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
      jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
          .registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
              try {
                Thread.sleep(5);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }

            @Override
            public void afterCompletion(int status) {}
          });
    });
    long failuresBefore = metrics.count("outbox.batch.failures", "drain");
    long deadlocksBefore = metrics.count("outbox.deadlocks", "drain");
    Map<String, List<Long>> published = new LinkedHashMap<>();
    List<Long> all = new ArrayList<>();
    publishRounds(published, all, 0, 10);
    // More publishers while the partitions drain: inserts meet the batches' locks too.
    List<CompletableFuture<Void>> publishers = new ArrayList<>();
    for (int publisher = 0; publisher < 3; publisher++) {
      int first = 10 + publisher * 10;
      publishers.add(CompletableFuture.runAsync(() -> {
        try {
          publishRounds(published, all, first, first + 10);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, threads));
    }
    for (CompletableFuture<Void> publisher : publishers) {
      publisher.get(120, TimeUnit.SECONDS);
    }

    Eventually.until(Duration.ofSeconds(60), "all " + all.size() + " messages are relayed",
        () -> Rows.messages(DATABASE, "drain") == 0,
        () -> Rows.messages(DATABASE, "drain") + " left, batch failures "
            + (metrics.count("outbox.batch.failures", "drain") - failuresBefore));
    Map<Long, Long> counts = ScriptedRelay.deliveryCounts();
    SoftAssertions softly = new SoftAssertions();
    // A deadlock is retried at once and counted under outbox.deadlocks, not as a failed batch: both must stay 0.
    softly.assertThat(metrics.count("outbox.deadlocks", "drain") - deadlocksBefore)
        .as("outbox.deadlocks; first deadlock logged: " + firstDeadlock())
        .isZero();
    softly.assertThat(metrics.count("outbox.batch.failures", "drain") - failuresBefore)
        .as("outbox.batch.failures; first: " + logs.messages(Level.WARNING).stream()
            .filter(message -> message.contains("failed batch")).findFirst().orElse("none"))
        .isZero();
    softly.assertThat(counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
        .as("messages relayed more than once").isEmpty();
    softly.assertThat(counts.keySet()).as("messages relayed").containsExactlyInAnyOrderElementsOf(all);
    softly.assertAll();
  }

  /** Deadlocks are logged at INFO, with the database's error attached (more than three in a row: WARNING). */
  private String firstDeadlock() {
    return logs.atLeast(Level.INFO).stream().map(LogRecord::getThrown).filter(java.util.Objects::nonNull)
        .map(MariaDbLockingTest::describe).filter(text -> text.contains("Deadlock")).findFirst().orElse("none");
  }

  private void publishRounds(Map<String, List<Long>> published, List<Long> all, int from, int to) throws Exception {
    for (int round = from; round < to; round++) {
      int base = round * 100;
      container.inTransaction(() -> {
        for (int i = 0; i < 100; i++) {
          String group = "g" + ((base + i) % 40);
          long id = outbox.publish("drain", Headered.key(group));
          synchronized (published) {
            published.computeIfAbsent(group, key -> new ArrayList<>()).add(id);
            all.add(id);
          }
        }
      });
    }
  }

  /**
   * The README (Databases) documents the worker's isolation level on MariaDB as the server's default,
   * REPEATABLE READ, which takes no gap locks for the worker's statements: the tests above run at it.
   */
  @Test
  void the_worker_runs_its_batches_at_repeatable_read_as_documented() throws Exception {
    AtomicReference<String> isolation = new AtomicReference<>();
    ScriptedRelay.script((batch, node) -> {
      // The pool hands the batch's JTA transaction its own connection again.
      try (java.sql.Connection connection = container.dataSource().getConnection();
          java.sql.Statement statement = connection.createStatement();
          java.sql.ResultSet rows = statement.executeQuery("SELECT @@tx_isolation")) {
        rows.next();
        isolation.compareAndSet(null, rows.getString(1));
      }
      ScriptedRelay.sendAll(batch, node);
    });
    long id = container.inTransaction(() -> outbox.publish("drain", Headered.key("isolation")));
    Eventually.until(WAIT, "the message is relayed", () -> Rows.message(DATABASE, id) == null, () -> "pending");
    assertThat(isolation.get()).as("the isolation level of the worker's transaction").isEqualTo("REPEATABLE-READ");
  }

  // ---- today 6: serialize-writes shares lock slots between unrelated groups ----

  @Test
  void serialize_writes_never_deadlocks_two_unrelated_groups_against_business_row_locks() throws Exception {
    // Two different groups that share a lock slot today: with per-group locks they must not meet.
    // The lock-slot function of 0.1 (1024 slots per outbox): any two colliding keys show the problem.
    String first = "customer:1";
    String second = null;
    for (int i = 2; second == null; i++) {
      if (oldLockSlot("customer:" + i) == oldLockSlot(first)) {
        second = "customer:" + i;
      }
    }
    String secondKey = second;
    Rows.update(DATABASE, "INSERT INTO test_order (id, description) VALUES (1, 'first'), (2, 'second')");

    CountDownLatch firstPublished = new CountDownLatch(1);
    CountDownLatch secondLockedItsRow = new CountDownLatch(1);
    AtomicReference<CompletableFuture<Long>> secondTransaction = new AtomicReference<>();
    secondTransaction.set(CompletableFuture.supplyAsync(() -> {
      await(firstPublished);
      return inTransaction(() -> {
        lockOrder(2);
        secondLockedItsRow.countDown();
        return outbox.publish("serial", Headered.key(secondKey));
      });
    }, threads));
    CompletableFuture<Long> firstTransaction = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      lockOrder(1);
      long id = outbox.publish("serial", Headered.key(first));
      firstPublished.countDown();
      await(secondLockedItsRow);
      // Let the second transaction reach its publish: done, or waiting for a lock.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!secondTransaction.get().isDone() && lockWaits() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      lockOrder(2);
      return id;
    }), threads);

    List<String> failures = new ArrayList<>();
    for (CompletableFuture<Long> transaction : List.of(firstTransaction, secondTransaction.get())) {
      try {
        transaction.get(60, TimeUnit.SECONDS);
      } catch (ExecutionException failed) {
        failures.add(describe(failed.getCause()));
      }
    }
    assertThat(failures).as("transactions publishing to groups '" + first + "' and '" + secondKey + "' (slot "
        + oldLockSlot(first) + ") that failed").isEmpty();
  }

  private void lockOrder(long id) {
    container.entityManager().find(TestOrder.class, id, LockModeType.PESSIMISTIC_WRITE);
  }

  /** Transactions of this database that wait for a lock right now. */
  private static long lockWaits() {
    return ((Number) Rows.query(DATABASE, "SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t"
        + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
        + " WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()").get(0).get("n")).longValue();
  }

  /** The lock slot 0.1 gave a group key: one of 1024 per outbox, shared by unrelated groups. */
  private static int oldLockSlot(String groupKey) {
    return (int) Math.floorMod(GroupHash.hash64(groupKey), 1024L);
  }

  private static String keyIn(int partition, String prefix) {
    for (int i = 0; ; i++) {
      String key = prefix + "-" + i;
      if (GroupHash.partition(GroupHash.partitionKey(key), DRAIN_PARTITIONS) == partition) {
        return key;
      }
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the other transaction did not get there");
      }
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The chain of exception classes and the root cause's message, in one line. */
  private static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder(failure.getClass().getSimpleName());
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
      text.append(" <- ").append(root.getClass().getSimpleName());
    }
    return text.append(": ").append(root.getMessage()).toString();
  }

  private <T> T inTransaction(Callable<T> work) {
    try {
      return container.inTransaction(work);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
