package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The locks of the dead-letter operations ({@code retryDead}, {@code retryDeadGroup}, {@code
 * discardDeadGroup}) against publishers, on a real database:
 *
 * <ul>
 *   <li>with {@code serialize-writes}, a revive takes its groups' write locks before it draws the
 *       new ids, as a publish does: a revive racing a publish of the same group that has drawn its
 *       id but not committed waits for it, so the group's ids still increase in commit order and
 *       are relayed in that order;
 *   <li>an admin transaction that is still open never holds up a publish of another group
 *       (MariaDB: no range or gap locks on outbox_message);
 *   <li>an admin call in a transaction of its own that the database rolls back to break a deadlock
 *       is run again.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminLockingContractTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String OUTBOX = "serial";
  /** Rows the other side of the deadlock inserts first, so that MariaDB rolls back the admin call. */
  private static final int BALLAST = 200;

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Set<String> failingGroups = ConcurrentHashMap.newKeySet();
  private CountDownLatch release;

  abstract TestDatabase database();

  /** Counts the sessions of this database that wait for a lock. */
  abstract String lockWaitsSql();

  /** Takes the serialize-writes lock of a group on a plain connection, as a publisher of that group does. */
  abstract void lockGroup(Connection connection, String outbox, String groupKey) throws SQLException;

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox." + OUTBOX + ".relay", "scripted");
    config.put("outbox." + OUTBOX + ".serialize-writes", "true");
    config.put("outbox." + OUTBOX + ".partitions", "1");
    // dead after one failure
    config.put("outbox." + OUTBOX + ".max-attempts", "1");
    config.put("outbox." + OUTBOX + ".poll-interval", "50ms");
    config.put("outbox." + OUTBOX + ".max-poll-interval", "200ms");
    container = OutboxTestContainer.builder(database()).config(config).beans(ScriptedRelay.class).start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
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
    failingGroups.clear();
    ScriptedRelay.reset();
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (failingGroups.contains(record.groupKey())) {
          batch.fail(record, new IllegalStateException("the destination refuses group " + record.groupKey()));
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
    });
    Rows.clear(database());
    release = new CountDownLatch(1);
  }

  @AfterEach
  void quiet() {
    release.countDown();
    failingGroups.clear();
    ScriptedRelay.reset();
    Rows.clear(database());
  }

  // ---- F1: a revive draws its new ids under the group's serialize-writes lock ----

  @Test
  void a_revive_of_a_group_waits_for_its_publish_in_flight_and_is_relayed_after_it() throws Exception {
    long deadId = publishDead("g").get(0);
    CountDownLatch published = new CountDownLatch(1);
    // A publish of the group that has drawn its id and holds its transaction open.
    CompletableFuture<Long> publish = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      long id = outbox.publish(OUTBOX, new Keyed("g", 2));
      published.countDown();
      await(release);
      return id;
    }), threads);
    assertThat(published.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the publish drew its id").isTrue();

    CompletableFuture<Integer> revive = CompletableFuture.supplyAsync(() -> admin.retryDeadGroup(OUTBOX, "g"), threads);
    String early = returnedWithin(revive, 1000, "the revive");
    release.countDown();
    long publishedId = publish.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    int revived = revive.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Eventually.until(WAIT, "both messages of group g are relayed", () -> Rows.messages(database(), OUTBOX) == 0,
        () -> Rows.messages(database(), OUTBOX) + " rows left, delivered " + ScriptedRelay.deliveredIdsByGroup());

    List<Long> delivered = ScriptedRelay.deliveredIdsByGroup().get("g");
    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(early).as("the revive must wait for the publish of its group in flight").isNull();
    softly.assertThat(revived).as("messages revived").isEqualTo(1);
    softly.assertThat(delivered).as("ids of group g in the order they were relayed (the dead one was " + deadId
        + ", the publish in flight " + publishedId + ")").hasSize(2).startsWith(publishedId).isSorted();
    softly.assertAll();
  }

  // ---- F2: an open admin transaction does not hold up a publish of another group ----

  @Test
  void a_publish_of_another_group_completes_within_1s_while_a_revive_of_a_dead_group_is_held_open() throws Exception {
    publishDead("g", "g");
    assertPublishOfAnotherGroupIsNotHeldUpBy("retryDeadGroup", () -> admin.retryDeadGroup(OUTBOX, "g"), 2);
  }

  @Test
  void a_publish_of_another_group_completes_within_1s_while_a_revive_by_id_is_held_open() throws Exception {
    List<Long> dead = publishDead("g", "g");
    assertPublishOfAnotherGroupIsNotHeldUpBy("retryDead", () -> admin.retryDead(OUTBOX, dead.get(1)), 1);
  }

  @Test
  void a_publish_of_another_group_completes_within_1s_while_a_revive_of_all_dead_messages_is_held_open()
      throws Exception {
    publishDead("g", "f");
    assertPublishOfAnotherGroupIsNotHeldUpBy("retryDead (all)", () -> admin.retryDead(OUTBOX), 2);
  }

  @Test
  void a_publish_of_another_group_completes_within_1s_while_a_discard_of_a_dead_group_is_held_open() throws Exception {
    publishDead("g", "g");
    assertPublishOfAnotherGroupIsNotHeldUpBy("discardDeadGroup", () -> admin.discardDeadGroup(OUTBOX, "g"), 2);
  }

  private void assertPublishOfAnotherGroupIsNotHeldUpBy(String call, Callable<Integer> adminCall, int expected)
      throws Exception {
    CountDownLatch called = new CountDownLatch(1);
    // The admin call runs in the caller's transaction, which stays open until released.
    CompletableFuture<Integer> held = CompletableFuture.supplyAsync(() -> inTransaction(() -> {
      int changed = adminCall.call();
      called.countDown();
      await(release);
      return changed;
    }), threads);
    assertThat(called.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as(call + " ran").isTrue();

    long started = System.nanoTime();
    CompletableFuture<Long> publish = CompletableFuture.supplyAsync(
        () -> inTransaction(() -> outbox.publish(OUTBOX, new Keyed("h", 1))), threads);
    String waited = null;
    try {
      publish.get(1, TimeUnit.SECONDS);
    } catch (TimeoutException slow) {
      waited = "the publish of group h was still waiting after 1s";
    }
    release.countDown();
    long id = publish.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    int changed = held.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(waited).as("publish of message " + id + " while " + call + " held its transaction open; it took "
        + millis + "ms in all").isNull();
    softly.assertThat(changed).as("messages " + call + " changed").isEqualTo(expected);
    softly.assertAll();
  }

  // ---- an admin call the database rolls back to break a deadlock is run again ----

  @Test
  void a_revive_the_database_rolls_back_to_break_a_deadlock_is_run_again_and_goes_through() throws Exception {
    publishDead("g1", "g2");
    // The tests' logging configuration passes WARNING and worse only; the retry is said at INFO.
    java.util.logging.Logger adminLog = java.util.logging.Logger.getLogger(OutboxAdminBean.class.getName());
    adminLog.setLevel(Level.INFO);
    try (LogCapture logs = LogCapture.start(); Connection other = database().connect()) {
      other.setAutoCommit(false);
      // The other side of the cycle: holds g2's lock (and, for MariaDB's choice of victim, many changed rows)...
      ballast(other);
      lockGroup(other, OUTBOX, "g2");
      // ...while the revive takes g1's lock and waits for g2's...
      CompletableFuture<Integer> revive = CompletableFuture.supplyAsync(() -> admin.retryDead(OUTBOX), threads);
      awaitLockWait("the revive waits for group g2's lock");
      // ...then it asks for g1's: the database breaks the deadlock by rolling back the revive, and this goes on.
      lockGroup(other, OUTBOX, "g1");
      other.commit();

      int revived;
      try {
        revived = revive.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        throw new AssertionError("the revive, rolled back to break a deadlock, failed instead of running again: "
            + e.getCause(), e.getCause());
      }
      assertThat(revived).as("messages revived").isEqualTo(2);
      assertThat(logs.messages(Level.INFO)).as("the deadlock happened and the revive was run again; " + logs.dump())
          .anyMatch(line -> line.contains("the database broke a deadlock by rolling back an admin operation;"
              + " nothing of it was committed and it is run again"));
    } finally {
      adminLog.setLevel(null);
    }
    Eventually.until(WAIT, "both revived messages are relayed", () -> Rows.messages(database(), OUTBOX) == 0,
        () -> Rows.messages(database(), OUTBOX) + " rows left");
  }

  @Test
  void a_revive_in_the_callers_transaction_that_the_database_rolls_back_to_break_a_deadlock_is_not_run_again()
      throws Exception {
    publishDead("g1", "g2");
    java.util.logging.Logger adminLog = java.util.logging.Logger.getLogger(OutboxAdminBean.class.getName());
    adminLog.setLevel(Level.INFO);
    try (LogCapture logs = LogCapture.start(); Connection other = database().connect()) {
      other.setAutoCommit(false);
      ballast(other);
      lockGroup(other, OUTBOX, "g2");
      // The same cycle as above, but the revive runs in a transaction the caller began: the database rolled back the
      // caller's work too, so nothing may be run again behind its back.
      CompletableFuture<Integer> revive = CompletableFuture.supplyAsync(
          () -> inTransaction(() -> admin.retryDead(OUTBOX)), threads);
      awaitLockWait("the revive waits for group g2's lock");
      lockGroup(other, OUTBOX, "g1");
      other.commit();

      Throwable failure = null;
      try {
        revive.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        failure = e.getCause();
      }
      assertThat(failure).as("the revive in the caller's transaction, rolled back by the database")
          .isInstanceOf(dev.outboxer.OutboxException.class)
          .hasMessageContaining("the database broke a deadlock by rolling back the caller's transaction during an"
              + " admin operation")
          .hasMessageContaining("run it again");
      assertThat(logs.messages(Level.INFO)).as("no retry inside the caller's transaction; " + logs.dump())
          .noneMatch(line -> line.contains("it is run again"));
    } finally {
      adminLog.setLevel(null);
    }
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left: nothing of the caller's transaction committed")
        .isEqualTo(2);
  }

  private static void ballast(Connection connection) throws SQLException {
    StringBuilder sql = new StringBuilder("INSERT INTO test_order (id, description) VALUES ");
    for (int i = 0; i < BALLAST; i++) {
      sql.append(i == 0 ? "" : ", ").append("(").append(1000 + i).append(", 'ballast')");
    }
    try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
      insert.executeUpdate();
    }
  }

  /** The lock key a publisher of the group takes on PostgreSQL. */
  static long lockKey(String outbox, String groupKey) {
    return GroupHash.lockKey(outbox, groupKey);
  }

  /** Publishes one message per group key given, each in its own transaction, and waits until all are dead. */
  private List<Long> publishDead(String... groups) throws Exception {
    failingGroups.addAll(List.of(groups));
    List<Long> ids = new ArrayList<>();
    for (String group : groups) {
      ids.add(container.inTransaction(() -> outbox.publish(OUTBOX, new Keyed(group, ids.size()))));
    }
    Eventually.until(WAIT, groups.length + " dead messages", () -> admin.counts(OUTBOX).dead() == groups.length,
        () -> admin.counts(OUTBOX).toString());
    failingGroups.clear();
    return ids;
  }

  /** Waits until a session of this database waits for a lock. */
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

  /** Null if the call is still running after the time given, else what it returned or threw meanwhile. */
  private static String returnedWithin(CompletableFuture<?> call, long millis, String what) {
    try {
      return what + " returned " + call.get(millis, TimeUnit.MILLISECONDS) + " within " + millis + "ms";
    } catch (TimeoutException stillWaiting) {
      return null;
    } catch (Exception failed) {
      return what + " threw " + failed.getCause() + " within " + millis + "ms";
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released within " + WAIT.toSeconds() + "s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
