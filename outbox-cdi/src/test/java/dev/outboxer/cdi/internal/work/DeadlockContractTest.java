package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import jakarta.persistence.LockModeType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 11, "Deliver" 5: deadlocks are retried and reported for what they are. Each test makes the
 * database break a real deadlock (PostgreSQL 40P01, MariaDB 1213) between two transactions that
 * lock rows in opposite order, one of them Outboxer's.
 *
 * <p>Which transaction the database rolls back is arranged, not left to chance: Outboxer's
 * transaction starts waiting first, so PostgreSQL (whose deadlock check runs in the session that
 * has waited {@code deadlock_timeout}) finds the cycle there; and the other transaction has first
 * inserted {@value #BALLAST} rows, so MariaDB (which rolls back the transaction that changed and
 * locked less) picks Outboxer's too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DeadlockContractTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int BALLAST = 200;
  private static final String DRAIN = "deadlock";
  private static final String SERIAL = "deadserial";

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxMetricsProbe metrics;
  private LogCapture logs;
  /** The tests' logging configuration passes WARNING and worse only; deadlocks are said at INFO. */
  private final java.util.logging.Logger workerLog =
      java.util.logging.Logger.getLogger(PartitionWorker.class.getName());
  private final ExecutorService threads = Executors.newCachedThreadPool();

  abstract TestDatabase database();

  /** Counts the sessions of this test's database that wait for a lock right now. */
  abstract String lockWaitsSql();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox." + DRAIN + ".relay", "scripted");
    config.put("outbox." + DRAIN + ".partitions", "1");
    config.put("outbox." + DRAIN + ".poll-interval", "100ms");
    config.put("outbox." + DRAIN + ".max-poll-interval", "200ms");
    config.put("outbox." + SERIAL + ".relay", "scripted");
    config.put("outbox." + SERIAL + ".serialize-writes", "true");
    container = OutboxTestContainer.builder(database()).config(config)
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
    Rows.clear(database());
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    Rows.clear(database());
    workerLog.setLevel(null);
    logs.close();
  }

  @Test
  void a_deadlocked_batch_is_counted_and_logged_as_a_deadlock_and_retried_with_nothing_lost() throws Exception {
    CountDownLatch relayHolding = new CountDownLatch(1);
    CountDownLatch rowLocked = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    // The first batch confirms its message, then waits until another transaction has locked that row: the batch's
    // DELETE then waits for that transaction.
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.sendAll(batch, node);
      if (first.compareAndSet(true, false)) {
        relayHolding.countDown();
        rowLocked.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    });
    long deadlocksBefore = metrics.count("outbox.deadlocks", DRAIN);
    long failuresBefore = metrics.count("outbox.batch.failures", DRAIN);
    long id = container.inTransaction(() -> outbox.publish(DRAIN, Headered.key("deadlocked")));
    assertThat(relayHolding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the relay holds the first batch").isTrue();

    String otherSide;
    try (Connection other = database().connect()) {
      other.setAutoCommit(false);
      ballast(other);
      try (PreparedStatement lock = other.prepareStatement("SELECT id FROM outbox_message WHERE id = ? FOR UPDATE")) {
        lock.setLong(1, id);
        lock.executeQuery().close();
      }
      rowLocked.countDown();
      awaitLockWait("the batch's DELETE waits for the message row");
      // Now the other way round: the partition row the batch's claim holds.
      CompletableFuture<String> partitionLock = CompletableFuture.supplyAsync(() -> {
        try (PreparedStatement lock = other.prepareStatement(
            "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = 0 FOR UPDATE")) {
          lock.setString(1, DRAIN);
          lock.executeQuery().close();
          return "got the partition row";
        } catch (SQLException e) {
          return (Sql.isDeadlock(e) ? "was chosen as the deadlock victim: " : "failed: ") + e;
        }
      }, threads);
      otherSide = partitionLock.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      other.rollback();
    }

    Eventually.until(WAIT, "message " + id + " is relayed after the deadlock",
        () -> Rows.message(database(), id) == null, () -> "row " + Rows.message(database(), id) + "; " + logs.dump());
    List<String> info = logs.messages(Level.INFO).stream().filter(text -> text.contains("deadlock")).toList();
    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(otherSide).as("the other transaction").isEqualTo("got the partition row");
    softly.assertThat(metrics.count("outbox.deadlocks", DRAIN) - deadlocksBefore).as("outbox.deadlocks").isEqualTo(1);
    softly.assertThat(metrics.count("outbox.batch.failures", DRAIN) - failuresBefore)
        .as("outbox.batch.failures (a deadlock is not counted as a failed batch)").isZero();
    softly.assertThat(info).as("INFO lines about the deadlock; " + logs.dump()).containsExactly("Outbox '" + DRAIN
        + "', partition 0: the database broke a deadlock by rolling back this partition's batch; nothing of it was"
        + " committed and it is retried now");
    softly.assertThat(logs.atLeast(Level.INFO).stream().filter(r -> r.getMessage().contains("deadlock"))
        .map(r -> Sql.isDeadlock(r.getThrown())).toList()).as("the INFO line carries the database's deadlock error")
        .containsExactly(true);
    softly.assertThat(logs.messages(Level.WARNING)).as("WARNING lines").isEmpty();
    softly.assertThat(ScriptedRelay.timesHanded(id)).as("times handed: the rolled-back batch, then its retry")
        .isEqualTo(2);
    softly.assertThat(ScriptedRelay.deliveryCounts()).as("deliveries").containsOnlyKeys(id);
    softly.assertAll();
  }

  @Test
  void a_publish_the_database_rolls_back_to_break_a_deadlock_says_so_and_the_transaction_run_again_goes_through()
      throws Exception {
    String group = "customer:7";
    Rows.update(database(), "INSERT INTO test_order (id, description) VALUES (1, 'shared')");
    CountDownLatch victimLockedItsRow = new CountDownLatch(1);
    CountDownLatch heavyPublished = new CountDownLatch(1);
    // The victim: locks the order, then publishes to a group whose lock the heavy transaction holds.
    CompletableFuture<Long> victim = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      lockOrder(1);
      victimLockedItsRow.countDown();
      await(heavyPublished);
      return outbox.publish(SERIAL, Headered.key(group));
    }), threads);
    // The other one: publishes to the group first, then locks the order the victim holds.
    CompletableFuture<Long> heavy = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      await(victimLockedItsRow);
      container.entityManager().createNativeQuery(ballastSql()).executeUpdate();
      long id = outbox.publish(SERIAL, Headered.key(group));
      heavyPublished.countDown();
      awaitLockWait("the victim's publish waits for the group's lock");
      lockOrder(1);
      return id;
    }), threads);

    long heavyId = heavy.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Throwable refused = null;
    try {
      victim.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      refused = e.getCause();
      while (refused instanceof IllegalStateException && refused.getCause() != null) {
        refused = refused.getCause();
      }
    }
    assertThat(refused).as("the victim's publish").isInstanceOf(OutboxException.class)
        .hasMessageContaining("Outbox '" + SERIAL + "': the database broke a deadlock by rolling back this transaction"
            + " while it wrote a message of group '" + group + "'")
        .hasMessageContaining("Nothing of the transaction is committed: run it again.");
    assertThat(Sql.isDeadlock(refused)).as("the cause is the database's deadlock error").isTrue();
    // Run again, as the message says: it goes through, and both messages are relayed once, in order; nothing of the
    // rolled-back transaction ever is.
    long againId = container.inTransaction(() -> {
      lockOrder(1);
      return outbox.publish(SERIAL, Headered.key(group));
    });
    Eventually.until(WAIT, "both messages are relayed", () -> Rows.messages(database(), SERIAL) == 0,
        () -> Rows.messages(database(), SERIAL) + " left");
    assertThat(ScriptedRelay.deliveredIdsByGroup().get(group)).containsExactly(heavyId, againId);
  }

  /** A transaction that changed {@value #BALLAST} rows: MariaDB rolls back the other side of a deadlock with it. */
  private void ballast(Connection connection) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(ballastSql())) {
      insert.executeUpdate();
    }
  }

  private static String ballastSql() {
    StringBuilder sql = new StringBuilder("INSERT INTO test_order (id, description) VALUES ");
    for (int i = 0; i < BALLAST; i++) {
      sql.append(i == 0 ? "" : ", ").append("(").append(1000 + i).append(", 'ballast')");
    }
    return sql.toString();
  }

  private void lockOrder(long id) {
    container.entityManager().find(TestOrder.class, id, LockModeType.PESSIMISTIC_WRITE);
  }

  /** Waits until a session of this database waits for a lock: the first half of the cycle is in place. */
  private void awaitLockWait(String what) {
    Eventually.until(WAIT, what, () -> {
      try (Connection connection = database().connect();
          PreparedStatement statement = connection.prepareStatement(lockWaitsSql());
          ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1) > 0;
      }
    }, () -> "no session waits for a lock");
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

  private <T> T inTransaction(Callable<T> work) {
    try {
      return container.inTransaction(work);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
