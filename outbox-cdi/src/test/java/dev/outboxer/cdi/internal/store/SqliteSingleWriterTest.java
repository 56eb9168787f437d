package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What Outboxer needs from SQLite, where the other databases' {@link DatabaseContractTest} does not
 * apply: there are no row locks to skip, and one writer holds the whole database. A claim waits
 * for the writer (busy_timeout) and then holds the partition alone, with a token above every token
 * handed out before, also one whose claim rolled back; a claim that waits longer counts the
 * partition as held; publishers of any groups wait for each other, so ids follow commit order and
 * {@code serialize-writes} has nothing to add; in WAL mode readers do not wait for the writer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqliteSingleWriterTest {

  private static final TestDatabase DATABASE = TestDatabase.SQLITE;
  private static final long TIMEOUT_SECONDS = 20;
  /** How long a claim or publish is given to show that it waits rather than being slow. */
  private static final long WAITS_MILLIS = 1500;

  private OutboxTestContainer container;
  /** A second pool on the same file whose connections give up after 300 ms (busy_timeout). */
  private OutboxTestContainer impatient;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(DATABASE)
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.serialize-writes", "true")
        .beans(RecordingRelay.class)
        .start();
    impatient = OutboxTestContainer.builder(DATABASE).keepSchema()
        .jdbcUrl(DATABASE.url().replace("busy_timeout=60000", "busy_timeout=300"))
        // Named rather than detected from the driver, as the first container does.
        .config("outbox.database", "sqlite")
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .beans(RecordingRelay.class)
        .start();
  }

  @AfterAll
  void stop() {
    threads.shutdownNow();
    if (impatient != null) {
      impatient.close();
    }
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void empty() {
    container.tables().deleteAllMessages();
  }

  @Test
  void a_claim_waits_for_the_transaction_that_holds_the_partition_then_gets_it_with_a_higher_token() throws Exception {
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<BatchStatements.Claim> holder = async(() -> container.inTransaction(() -> {
      BatchStatements.Claim claim = claim(container, 0);
      claimed.countDown();
      release.await();
      return claim;
    }));
    assertThat(claimed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();

    // Another partition too: the single writer holds the whole database, not a row.
    CompletableFuture<BatchStatements.Claim> same = async(() -> container.inTransaction(() -> claim(container, 0)));
    CompletableFuture<BatchStatements.Claim> other = async(() -> container.inTransaction(() -> claim(container, 1)));
    Thread.sleep(WAITS_MILLIS);
    assertThat(same).as("the claim of the held partition waits").isNotDone();
    assertThat(other).as("so does a claim of another partition").isNotDone();

    release.countDown();
    BatchStatements.Claim first = holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    BatchStatements.Claim second = same.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(first.claimed()).isTrue();
    assertThat(second.claimed()).isTrue();
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(other.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).claimed()).isTrue();
  }

  @Test
  void a_claim_that_waits_longer_than_busy_timeout_counts_the_partition_as_held() throws Exception {
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<BatchStatements.Claim> holder = async(() -> container.inTransaction(() -> {
      BatchStatements.Claim claim = claim(container, 0);
      claimed.countDown();
      release.await();
      return claim;
    }));
    assertThat(claimed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    try {
      BatchStatements.Claim refused = impatient.inTransaction(() -> claim(impatient, 0));
      assertThat(refused.claimed()).isFalse();
      assertThat(refused.partitionCount()).as("the rules in force, read all the same").isEqualTo(2);
    } finally {
      release.countDown();
    }
    assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).claimed()).isTrue();
    assertThat(impatient.inTransaction(() -> claim(impatient, 0)).claimed()).as("free again").isTrue();
  }

  @Test
  void the_token_of_a_claim_that_rolled_back_is_never_handed_out_again() throws Exception {
    long rolledBack;
    jakarta.transaction.UserTransaction transaction = com.arjuna.ats.jta.UserTransaction.userTransaction();
    transaction.begin();
    try {
      rolledBack = claim(container, 0).fencingToken();
    } finally {
      transaction.rollback();
    }
    // The counter row went back with the rollback; the relay that had the token may still be using it.
    long next = container.inTransaction(() -> claim(container, 0)).fencingToken();
    assertThat(next).isGreaterThan(rolledBack);
  }

  @Test
  void publishers_of_different_groups_wait_for_each_other_so_ids_follow_commit_order() throws Exception {
    Outbox outbox = container.select(Outbox.class);
    CountDownLatch published = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Long> first = async(() -> container.inTransaction(() -> {
      long id = outbox.publish("orders", new Keyed("customer:1", 1));
      published.countDown();
      release.await();
      return id;
    }));
    assertThat(published.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Long> otherGroup = async(() -> container.inTransaction(
        () -> outbox.publish("orders", new Keyed("customer:2", 1))));
    Thread.sleep(WAITS_MILLIS);
    assertThat(otherGroup).as("waits for the writer, whatever its group").isNotDone();

    release.countDown();
    long firstId = first.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(otherGroup.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isGreaterThan(firstId);
    // serialize-writes=true needs no lock table of its own on SQLite.
    assertThat(container.tables().countMessages()).isEqualTo(2);
  }

  @Test
  void in_wal_mode_reads_do_not_wait_for_the_writer() throws Exception {
    OutboxAdmin admin = container.select(OutboxAdmin.class);
    Outbox outbox = container.select(Outbox.class);
    container.inTransaction(() -> outbox.publish("orders", new Keyed("read", 0)));
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<BatchStatements.Claim> holder = async(() -> container.inTransaction(() -> {
      BatchStatements.Claim claim = claim(container, 0);
      outbox.publish("orders", new Keyed("read", 1));
      claimed.countDown();
      release.await();
      return claim;
    }));
    assertThat(claimed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    try {
      long pending = async(() -> admin.counts("orders").pending()).get(WAITS_MILLIS, TimeUnit.MILLISECONDS);
      assertThat(pending).as("the committed message; the writer's is not visible yet").isEqualTo(1);
    } finally {
      release.countDown();
    }
    assertThat(holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).claimed()).isTrue();
    assertThat(admin.counts("orders").pending()).isEqualTo(2);
  }

  @Test
  void an_admin_operation_that_waits_longer_than_busy_timeout_fails_and_changes_nothing() throws Exception {
    Outbox outbox = container.select(Outbox.class);
    long id = container.inTransaction(() -> outbox.publish("orders", new Keyed("discard", 0)));
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<BatchStatements.Claim> holder = async(() -> container.inTransaction(() -> {
      BatchStatements.Claim claim = claim(container, 0);
      claimed.countDown();
      release.await();
      return claim;
    }));
    assertThat(claimed.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    try {
      assertThatThrownBy(() -> impatient.select(OutboxAdmin.class).discard("orders", id))
          .isInstanceOf(OutboxException.class).hasMessageContaining("busy_timeout");
    } finally {
      release.countDown();
    }
    holder.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(container.tables().message(id)).isPresent();
    assertThat(container.select(OutboxAdmin.class).discard("orders", id)).isTrue();
  }

  /** A claim as a worker makes it, in the calling thread's transaction. */
  private static BatchStatements.Claim claim(OutboxTestContainer node, int partition) throws Exception {
    BatchStatements statements = node.select(BatchStatements.class);
    return node.select(Jdbc.class).call(connection -> statements.claim(connection, "orders", partition, "test-node",
        "test-instance", LocalDateTime.now(ZoneOffset.UTC), 0));
  }

  private <T> CompletableFuture<T> async(Callable<T> work) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return work.call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, threads);
  }
}
