package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Ordering;
import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Delayed;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What Outboxer needs from each database, with real transactions on real threads: a partition
 * claim that skips a row another transaction holds instead of waiting, and {@code
 * serialize-writes} that makes a second publisher of a group wait for the first one's commit
 * while publishers of other groups go on; a claim that comes with the read of the partition reads
 * nothing of a partition held elsewhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatabaseContractTest {

  private static final long TIMEOUT_SECONDS = 15;

  private OutboxTestContainer container;
  Outbox outbox;
  BatchStatements statements;
  dev.outboxer.cdi.internal.jdbc.Jdbc jdbc;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  abstract TestDatabase database();

  /** A query counting transactions that wait for a lock right now. */
  abstract String lockWaitsQuery();

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(database())
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.serialize-writes", "true")
        .beans(RecordingRelay.class)
        .start();
    outbox = container.select(Outbox.class);
    statements = container.select(BatchStatements.class);
    jdbc = container.select(dev.outboxer.cdi.internal.jdbc.Jdbc.class);
  }

  @AfterAll
  void stop() {
    threads.shutdownNow();
    if (container != null) {
      container.close();
    }
  }

  @Test
  void a_partition_held_by_one_transaction_is_skipped_at_once_by_another() throws Exception {
    HeldPartition holder = holdPartition(0);

    // A claim that waited for the lock would not come back before the holder lets go.
    CompletableFuture<boolean[]> other = CompletableFuture.supplyAsync(() -> inTransaction(() -> new boolean[] {
        claim(0),
        claim(1)}), threads);
    boolean[] otherClaims = other.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(otherClaims[0]).as("partition 0 is held elsewhere").isFalse();
    assertThat(otherClaims[1]).as("partition 1 is free").isTrue();

    assertThat(holder.letGo()).as("the holder had claimed partition 0").isTrue();
    assertThat(inTransaction(() -> claim(0))).isTrue();
  }

  @Test
  void serialize_writes_makes_a_second_publisher_of_a_group_wait_for_the_first_to_commit() throws Exception {
    CountDownLatch firstPublished = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      long id = outbox.publish("orders", new Keyed("customer:1", 1));
      firstPublished.countDown();
      release.await();
      return id;
    }), threads);
    assertThat(firstPublished.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Long> second = CompletableFuture.supplyAsync(
        () -> inTransaction(() -> outbox.publish("orders", new Keyed("customer:1", 2))), threads);
    // The database itself reports the second publisher waiting on a lock: it is blocked, not slow.
    await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS)).until(() -> lockWaits() >= 1);
    assertThat(second).isNotDone();

    // Another group is not held up by the first publisher's lock.
    long otherGroup = CompletableFuture.supplyAsync(
        () -> inTransaction(() -> outbox.publish("orders", new Keyed("customer:2", 1))), threads)
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(second).isNotDone();

    release.countDown();
    long firstId = first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    long secondId = second.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    // The lock is taken before the id: ids of a group follow commit order.
    assertThat(secondId).isGreaterThan(firstId).isGreaterThan(otherGroup);
  }

  @Test
  void a_claim_with_its_read_reads_the_partition_it_took_and_nothing_of_one_held_elsewhere() throws Exception {
    inTransaction(() -> {
      for (int i = 0; i < 20; i++) {
        outbox.publish("orders", new Keyed("read-" + i, i));
      }
      return null;
    });
    HeldPartition holder = holdPartition(0);
    try {
      BatchStatements.ClaimedRead held = CompletableFuture.supplyAsync(() -> inTransaction(() -> claimAndRead(0)),
          threads).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertThat(held.claim().claimed()).as("partition 0 is held elsewhere").isFalse();
      assertThat(held.read()).isNull();

      BatchStatements.ClaimedRead free = CompletableFuture.supplyAsync(() -> inTransaction(() -> claimAndRead(1)),
          threads).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertThat(free.claim().claimed()).as("partition 1 is free").isTrue();
      assertThat(free.read().rows()).extracting(BatchStatements.StoredMessage::id)
          .as("the pending messages of partition 1").containsExactlyElementsOf(pendingIds(1));
    } finally {
      assertThat(holder.letGo()).as("the holder had claimed partition 0").isTrue();
    }
  }

  @Test
  void a_read_takes_the_due_waiting_messages_a_limit_at_a_time_lowest_ids_first() throws Exception {
    java.time.Instant soon = container.clock().instant().plusSeconds(5);
    try {
      inTransaction(() -> {
        for (int i = 0; i < 60; i++) {
          outbox.publish("orders", new dev.outboxer.cdi.internal.Delayed("due-" + i, i, soon));
        }
        return null;
      });
      java.time.LocalDateTime later = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC).plusHours(1);
      for (int partition = 0; partition < 2; partition++) {
        int claimed = partition;
        java.util.List<Long> waiting = pendingIds(claimed);
        assertThat(waiting).as("partition " + claimed + " holds more due messages than a read's limit").hasSizeGreaterThan(10);
        BatchStatements.Read read = inTransaction(() -> jdbc.call(connection -> statements.claimAndRead(connection,
            "orders", claimed, "test-node", "test-instance", later, 0,
            new BatchStatements.ReadRequest(dev.outboxer.Ordering.GROUP, Long.MAX_VALUE, 10, false)))).read();
        assertThat(read.rows()).extracting(BatchStatements.StoredMessage::id).as("partition " + claimed)
            .containsExactlyElementsOf(waiting.subList(0, 10));
        assertThat(read.dueCutOffAt()).isEqualTo(waiting.get(9));
        assertThat(read.waiting()).as("every waiting message is still listed").hasSize(waiting.size());
      }
    } finally {
      dev.outboxer.cdi.internal.Rows.clear(database());
    }
  }

  /**
   * At READ COMMITTED each statement sees what committed before it. A message that begins to wait
   * (a delayed one) and a later message of its group, both committed after the claim's statement
   * and before the scan's, come back together: the later message among the rows and the one that
   * holds it back in the waiting list, so that the selection holds it back. On MariaDB the claim
   * tells the read that nothing waited, and the read leaves out its first waiting list: only the
   * list read with the scan knows. Run by the databases whose read scans in a statement of its own.
   */
  void a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group()
      throws Exception {
    String group = "late-holder";
    int partition = GroupHash.partition(GroupHash.partitionKey(group), 2);
    long[] published = new long[2];
    AtomicBoolean hookRan = new AtomicBoolean();
    java.time.Instant now = container.clock().instant();
    try (Connection plain = database().connect()) {
      plain.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      plain.setAutoCommit(false);
      // Before the scan is prepared, another transaction publishes and commits both messages.
      Connection hooked = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {Connection.class}, (proxy, method, args) -> {
            if (method.getName().equals("prepareStatement") && ((String) args[0]).contains("ORDER BY m.id LIMIT")
                && hookRan.compareAndSet(false, true)) {
              CompletableFuture.runAsync(() -> inTransaction(() -> {
                published[0] = outbox.publish("orders", new Delayed(group, 1, now.plusSeconds(3_600)));
                published[1] = outbox.publish("orders", new Keyed(group, 2));
                return null;
              }), threads).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            try {
              return method.invoke(plain, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
      BatchStatements.ClaimedRead claimed = statements.claimAndRead(hooked, "orders", partition, "test-node",
          "test-instance", LocalDateTime.ofInstant(now, ZoneOffset.UTC), 0,
          new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, true));
      plain.rollback();
      assertThat(hookRan).as("the scan was prepared after the claim").isTrue();
      assertThat(claimed.claim().claimed()).isTrue();
      assertThat(claimed.read().rows()).extracting(BatchStatements.StoredMessage::id)
          .as("the scan saw the later message, committed after the claim").contains(published[1]);
      assertThat(claimed.read().waiting()).extracting(BatchStatements.Waiting::id)
          .as("the message that holds it back is listed with it").contains(published[0]);
    } finally {
      dev.outboxer.cdi.internal.Rows.clear(database());
    }
  }

  /** A transaction on another thread that claimed a partition and keeps it until {@link #letGo}. */
  private record HeldPartition(CompletableFuture<Boolean> claim, CountDownLatch release) {
    /** Lets the holder commit; whether its claim had taken the partition. */
    boolean letGo() throws Exception {
      release.countDown();
      return claim.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** Claims the partition in a transaction on another thread, and returns once it holds it. */
  private HeldPartition holdPartition(int partition) throws InterruptedException {
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Boolean> claim = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      boolean got = claim(partition);
      claimed.countDown();
      release.await();
      return got;
    }), threads);
    assertThat(claimed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    return new HeldPartition(claim, release);
  }

  /** A claim and read as a worker makes them, in the calling thread's transaction. */
  BatchStatements.ClaimedRead claimAndRead(int partition) throws Exception {
    return jdbc.call(connection -> statements.claimAndRead(connection, "orders", partition, "test-node",
        "test-instance", java.time.LocalDateTime.now(java.time.ZoneOffset.UTC), 0,
        new BatchStatements.ReadRequest(dev.outboxer.Ordering.GROUP, 0, 100, true)));
  }

  /** The ids of the partition's pending messages, as committed. */
  java.util.List<Long> pendingIds(int partition) throws Exception {
    java.util.List<Long> ids = new java.util.ArrayList<>();
    try (var connection = database().connect(); var statement = connection.prepareStatement("SELECT id FROM"
        + " outbox_message WHERE outbox = 'orders' AND partition_no = ? AND status = 'PENDING' ORDER BY id")) {
      statement.setInt(1, partition);
      try (var rows = statement.executeQuery()) {
        while (rows.next()) {
          ids.add(rows.getLong(1));
        }
      }
    }
    return ids;
  }

  /** A claim as a worker makes it, in the calling thread's transaction. */
  private boolean claim(int partition) throws Exception {
    return jdbc.call(connection -> statements.claim(connection, "orders", partition, "test-node", "test-instance",
        java.time.LocalDateTime.now(java.time.ZoneOffset.UTC), 0)).claimed();
  }

  private long lockWaits() throws Exception {
    try (var connection = database().connect(); var statement = connection.createStatement();
        var result = statement.executeQuery(lockWaitsQuery())) {
      result.next();
      return result.getLong(1);
    }
  }

  <T> T inTransaction(java.util.concurrent.Callable<T> work) {
    try {
      return container.inTransaction(work);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
