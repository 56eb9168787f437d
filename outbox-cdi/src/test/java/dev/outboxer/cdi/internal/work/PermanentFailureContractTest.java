package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedFailures;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.PermanentRelayFailure;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.transaction.Synchronization;
import java.io.FileNotFoundException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 30, items 3 and 4: a failure that is permanent (its class, a cause's class or a superclass
 * listed in {@code dead-on}, or the relay said so with {@link PermanentRelayFailure}) kills its
 * message at once, also with {@code max-attempts=infinity}, and its group moves on in order; when
 * a message dies, the application's {@code @Observes DeadMessage} hears of it once the death is
 * committed, never for a batch that did not commit, and an observer that throws changes nothing.
 *
 * <p>Every outbox has one partition and is relayed by the {@link ScriptedRelay}, whose script
 * fails the records a test names with the failure it gives.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PermanentFailureContractTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private LogCapture logs;
  private final ScriptedFailures failures = new ScriptedFailures();

  abstract TestDatabase database();

  /** A query returning the id of the connection it runs on. */
  abstract String connectionIdSql();

  /** A statement that kills the connection with this id. */
  abstract String killSql(long connectionId);

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    DeadMessageObserver.reset();
    DeadMessageObserver.database = database();
    container = OutboxTestContainer.builder(database())
        .config(outbox("deadon", "infinity", "1m"))
        .config("outbox.deadon.dead-on", "java.util.NoSuchElementException, java.io.IOException")
        .config(outbox("marked", "infinity", "1m"))
        .config(outbox("tries", "2", "100ms"))
        .config(outbox("lost", "infinity", "1m"))
        .config("outbox.lost.dead-on", "java.util.NoSuchElementException")
        .config(outbox("doomed", "infinity", "1m"))
        .config("outbox.doomed.dead-on", "java.util.NoSuchElementException")
        .config(outbox("standins", "infinity", "1m"))
        .config("outbox.standins.dead-on", "java.lang.IllegalStateException")
        .beans(ScriptedRelay.class, DeadMessageObserver.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
  }

  private static Map<String, String> outbox(String name, String maxAttempts, String backoff) {
    return Map.of("outbox." + name + ".relay", "scripted", "outbox." + name + ".max-attempts", maxAttempts,
        "outbox." + name + ".backoff.min", backoff, "outbox." + name + ".backoff.max", backoff,
        "outbox." + name + ".poll-interval", "100ms", "outbox." + name + ".max-poll-interval", "200ms");
  }

  @AfterAll
  void stop() {
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void clean() {
    DeadMessageObserver.reset();
    logs = failures.begin(LogCapture.start());
  }

  @AfterEach
  void quiet() {
    failures.end(database());
  }

  // ---- item 3: dead-on by class, by cause, by subclass; and a failure that is not permanent ----

  @Test
  void a_failure_of_a_dead_on_class_kills_the_message_at_once_even_with_infinite_attempts() throws Exception {
    long id = publishFailing("deadon", "customer-1", new NoSuchElementException("no customer 1 at the partner"));

    awaitDead(id);
    assertThat(Rows.attempts(database(), id)).as("attempts").isEqualTo(1);
    assertThat(lastError(id)).isEqualTo("permanent: java.util.NoSuchElementException matched outbox.deadon.dead-on:"
        + " java.util.NoSuchElementException: no customer 1 at the partner");
    assertThat(logs.messages(Level.WARNING)).as(logs.dump()).anySatisfy(message -> assertThat(message)
        .contains("message " + id).contains("permanent").contains("matched outbox.deadon.dead-on"));
  }

  @Test
  void a_failure_whose_cause_is_of_a_dead_on_class_is_permanent() throws Exception {
    long id = publishFailing("deadon", "customer-2", new IllegalStateException("the partner refused the call",
        new NoSuchElementException("no customer 2")));

    awaitDead(id);
    assertThat(lastError(id)).isEqualTo("permanent: java.util.NoSuchElementException matched outbox.deadon.dead-on:"
        + " java.lang.IllegalStateException: the partner refused the call <- java.util.NoSuchElementException:"
        + " no customer 2");
  }

  @Test
  void a_failure_of_a_subclass_of_a_dead_on_class_is_permanent_and_names_the_entry_it_matched() throws Exception {
    long id = publishFailing("deadon", "customer-3", new IllegalStateException("upload failed",
        new FileNotFoundException("/partner/inbox/3.json")));

    awaitDead(id);
    assertThat(lastError(id)).startsWith("permanent: java.io.FileNotFoundException matched outbox.deadon.dead-on"
        + " (java.io.IOException): java.lang.IllegalStateException: upload failed <- java.io.FileNotFoundException");
  }

  @Test
  void a_failure_of_no_dead_on_class_is_retried_after_its_backoff_and_holds_back_its_group() throws Exception {
    long id = publishFailing("deadon", "customer-4", new IllegalStateException("the partner is down"));
    long next = publish("deadon", "customer-4");
    assertThat(next).isGreaterThan(id);

    Eventually.until(WAIT, "the failure is charged", () -> Rows.attempts(database(), id) == 1, logs::dump);
    Thread.sleep(500); // several polls: neither the message dies nor its group moves on
    assertThat(Rows.status(database(), id)).isEqualTo("PENDING");
    assertThat(Rows.message(database(), id).get("next_attempt_at")).isNotNull();
    assertThat(lastError(id)).isEqualTo("java.lang.IllegalStateException: the partner is down");
    assertThat(Rows.status(database(), next)).as("the next message of the group waits").isEqualTo("PENDING");
    assertThat(ScriptedRelay.deliveryCounts()).doesNotContainKey(next);
    assertThat(DeadMessageObserver.HEARD).isEmpty();
  }

  // ---- item 3: the relay marks a failure permanent ----

  @Test
  void a_failure_the_relay_marks_permanent_kills_the_message_at_once_even_with_infinite_attempts() throws Exception {
    long id = publishFailing("marked", "order-1", new PermanentRelayFailure("the partner's schema rejects it",
        new IllegalArgumentException("field 'total' is negative")));

    awaitDead(id);
    assertThat(Rows.attempts(database(), id)).isEqualTo(1);
    assertThat(lastError(id)).isEqualTo("permanent: the relay marked it permanent:"
        + " dev.outboxer.spi.PermanentRelayFailure: the partner's schema rejects it"
        + " <- java.lang.IllegalArgumentException: field 'total' is negative");
  }

  @Test
  void a_permanent_relay_failure_wrapped_by_the_relay_still_counts() throws Exception {
    long id = publishFailing("marked", "order-2", new IllegalStateException("handler failed",
        new PermanentRelayFailure("unknown product")));

    awaitDead(id);
    assertThat(lastError(id)).startsWith("permanent: the relay marked it permanent: java.lang.IllegalStateException");
  }

  @Test
  void a_failure_the_relay_throws_is_permanent_for_each_record_it_left_unreported() throws Exception {
    AtomicBoolean thrown = new AtomicBoolean();
    ScriptedRelay.script((batch, node) -> {
      if (thrown.compareAndSet(false, true)) {
        ScriptedRelay.send(batch, batch.records().get(0), node);
        throw new NoSuchElementException("the partner's directory is gone");
      }
      ScriptedRelay.sendAll(batch, node);
    });
    List<Long> ids = container.inTransaction(() -> List.of(outbox.publish("deadon", Headered.key("a")),
        outbox.publish("deadon", Headered.key("b")), outbox.publish("deadon", Headered.key("b")),
        outbox.publish("deadon", Headered.key(null))));

    Eventually.until(WAIT, "the first unreported record of group b and the ungrouped one are dead, the rest delivered",
        () -> Rows.messages(database(), "deadon") == 2 && ScriptedRelay.deliveryCounts().containsKey(ids.get(2)),
        () -> "rows " + ids.stream().map(id -> Rows.status(database(), id)).toList() + ", " + logs.dump());
    assertThat(Rows.status(database(), ids.get(1))).isEqualTo("DEAD");
    assertThat(Rows.status(database(), ids.get(3))).isEqualTo("DEAD");
    assertThat(lastError(ids.get(1))).isEqualTo("permanent: java.util.NoSuchElementException matched"
        + " outbox.deadon.dead-on: java.util.NoSuchElementException: the partner's directory is gone");
    assertThat(ScriptedRelay.deliveryCounts()).as("sent once each").containsEntry(ids.get(0), 1L)
        .containsEntry(ids.get(2), 1L).doesNotContainKeys(ids.get(1), ids.get(3));
  }

  @Test
  void a_failure_the_core_makes_up_is_never_permanent_even_if_its_class_is_listed() throws Exception {
    // outbox.standins.dead-on lists IllegalStateException, the class of the core's "returned without reporting".
    ScriptedRelay.script((batch, node) -> {
      if (!batch.outbox().equals("standins")) {
        ScriptedRelay.sendAll(batch, node);
      }
    });
    long id = publish("standins", "customer-11");

    Eventually.until(WAIT, "the unreported record is charged", () -> Rows.attempts(database(), id) == 1, logs::dump);
    assertThat(Rows.status(database(), id)).isEqualTo("PENDING");
    assertThat(lastError(id)).startsWith("java.lang.IllegalStateException: The relay 'scripted' returned without"
        + " reporting");
    assertThat(DeadMessageObserver.HEARD).isEmpty();
  }

  // ---- item 3: the group of a permanently failed message keeps its order and loses nothing ----

  @Test
  void a_group_with_a_permanently_failed_message_keeps_its_order_and_loses_nothing() throws Exception {
    List<Long> ids = container.inTransaction(() -> {
      List<Long> published = List.of(
          outbox.publish("deadon", Headered.key("g")), outbox.publish("deadon", Headered.key("h")),
          outbox.publish("deadon", Headered.key("g")), outbox.publish("deadon", Headered.key("g")),
          outbox.publish("deadon", Headered.key("h")));
      failures.fail(published.get(2), new IllegalStateException("refused", new NoSuchElementException("gone")));
      return published;
    });

    Eventually.until(WAIT, "every message but the permanently failed one is delivered and deleted",
        () -> Rows.messages(database(), "deadon") == 1, () -> "deliveries " + ScriptedRelay.deliveredIdsByGroup()
            + ", " + logs.dump());
    assertThat(Rows.status(database(), ids.get(2))).isEqualTo("DEAD");
    assertThat(ScriptedRelay.deliveredIdsByGroup()).as("sent per group, in order, each once")
        .containsEntry("g", List.of(ids.get(0), ids.get(3))).containsEntry("h", List.of(ids.get(1), ids.get(4)));
    assertThat(admin.dead("deadon", 10)).extracting(DeadMessage::id).containsExactly(ids.get(2));
    long deathAt = ScriptedRelay.seen().stream().filter(seen -> seen.records().stream()
        .anyMatch(record -> record.id() == ids.get(2))).mapToLong(ScriptedRelay.Seen::endNanos).min().orElseThrow();
    long nextSentAt = ScriptedRelay.deliveries().stream().filter(d -> d.record().id() == ids.get(3))
        .mapToLong(ScriptedRelay.Delivery::nanos).min().orElseThrow();
    assertThat(nextSentAt).as("g3 goes out only after g2 failed").isGreaterThan(deathAt);
  }

  // ---- item 4: the dead-letter event ----

  @Test
  void the_dead_message_event_arrives_after_the_commit_with_the_message_as_admin_lists_it() throws Exception {
    Instant before = Instant.now();
    long id = publishFailing("deadon", "customer-5", new NoSuchElementException("no customer 5"));

    Eventually.until(WAIT, "the observer hears of the dead message", () -> !DeadMessageObserver.heardOf(id).isEmpty(),
        logs::dump);
    DeadMessageObserver.Heard heard = DeadMessageObserver.heardOf(id).get(0);
    assertThat(heard.committedStatus()).as("the death is committed when the observer hears of it").isEqualTo("DEAD");
    DeadMessage listed = admin.dead("deadon", 10).get(0);
    DeadMessage event = heard.message();
    assertThat(event.id()).isEqualTo(id);
    assertThat(event.outbox()).isEqualTo("deadon");
    assertThat(event.groupKey()).isEqualTo("customer-5");
    assertThat(event.type()).isEqualTo(listed.type()).isEqualTo("Headered");
    assertThat(event.attempts()).isEqualTo(1);
    assertThat(event.lastError()).isEqualTo(listed.lastError()).startsWith("permanent: ");
    assertThat(event.createdAt()).isBetween(before.minusSeconds(1), listed.lastAttemptAt());
    assertThat(Duration.between(listed.lastAttemptAt(), event.lastAttemptAt()).abs()).isLessThan(Duration.ofMillis(2));
    assertThat(Duration.between(listed.createdAt(), event.createdAt()).abs()).isLessThan(Duration.ofMillis(2));
    Thread.sleep(300);
    assertThat(DeadMessageObserver.heardOf(id)).as("heard once").hasSize(1);
  }

  @Test
  void a_message_dead_of_its_attempts_is_heard_of_too() throws Exception {
    long id = publishFailing("tries", "customer-6", new IllegalStateException("the partner is down"));

    Eventually.until(WAIT, "the observer hears of the dead message", () -> !DeadMessageObserver.heardOf(id).isEmpty(),
        logs::dump);
    DeadMessage event = DeadMessageObserver.heardOf(id).get(0).message();
    assertThat(event.attempts()).isEqualTo(2);
    assertThat(event.lastError()).isEqualTo("java.lang.IllegalStateException: the partner is down");
    assertThat(DeadMessageObserver.heardOf(id).get(0).committedStatus()).isEqualTo("DEAD");
  }

  @Test
  void an_asynchronous_observer_hears_of_it_too() throws Exception {
    long id = publishFailing("deadon", "customer-7", new NoSuchElementException("no customer 7"));

    Eventually.until(WAIT, "the asynchronous observer hears of the dead message",
        () -> DeadMessageObserver.HEARD_LATER.stream().anyMatch(message -> message.id() == id), logs::dump);
  }

  @Test
  void an_observer_that_throws_changes_nothing_the_outbox_committed_and_is_warned_of_once() throws Exception {
    DeadMessageObserver.THROW_FOR_GROUPS.add("customer-8");
    List<Long> ids = container.inTransaction(() -> {
      List<Long> published = List.of(outbox.publish("deadon", Headered.key("customer-8")),
          outbox.publish("deadon", Headered.key("customer-8")), outbox.publish("deadon", Headered.key("customer-9")));
      failures.fail(published.get(0), new NoSuchElementException("no customer 8"));
      return published;
    });

    Eventually.until(WAIT, "the rest of the group and the other group are delivered",
        () -> Rows.messages(database(), "deadon") == 1, () -> ScriptedRelay.deliveredIdsByGroup() + ", " + logs.dump());
    assertThat(Rows.status(database(), ids.get(0))).isEqualTo("DEAD");
    assertThat(ScriptedRelay.deliveryCounts()).as("each delivered once").containsEntry(ids.get(1), 1L)
        .containsEntry(ids.get(2), 1L).doesNotContainKey(ids.get(0));
    assertThat(DeadMessageObserver.heardOf(ids.get(0))).hasSize(1);
    List<String> warnings = logs.messages(Level.WARNING).stream()
        .filter(message -> message.contains("observer")).toList();
    assertThat(warnings).as(logs.dump()).singleElement().satisfies(message -> assertThat(message)
        .contains("message " + ids.get(0)).contains("the observer's alerting service is down")
        .doesNotContain("\u0000"));
  }

  @Test
  void a_batch_the_relay_rolls_back_fires_the_event_once_its_failures_recorded_alone_are_committed() throws Exception {
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if ("customer-12".equals(record.groupKey())) {
          // As the local relay does when a handler fails: the failure is reported, the transaction doomed.
          batch.fail(record, new NoSuchElementException("no customer 12"));
          jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry().setRollbackOnly();
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
    });
    long id = publish("doomed", "customer-12");

    Eventually.until(WAIT, "the observer hears of the death recorded alone", () -> !DeadMessageObserver.heardOf(id)
        .isEmpty(), () -> "row " + Rows.message(database(), id) + ", " + logs.dump());
    assertThat(DeadMessageObserver.heardOf(id).get(0).committedStatus()).isEqualTo("DEAD");
    assertThat(DeadMessageObserver.heardOf(id).get(0).message().attempts()).isEqualTo(1);
    assertThat(lastError(id)).startsWith("permanent: java.util.NoSuchElementException matched outbox.doomed.dead-on");
    Thread.sleep(300);
    assertThat(DeadMessageObserver.heardOf(id)).hasSize(1);
  }

  @Test
  void no_event_for_a_batch_whose_commit_did_not_happen_and_one_once_the_death_is_committed() throws Exception {
    AtomicBoolean killing = new AtomicBoolean();
    AtomicReference<String> killed = new AtomicReference<>();
    AtomicReference<Integer> heardBeforeTheKill = new AtomicReference<>();
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (!batch.heldBack(record)) {
          batch.fail(record, new NoSuchElementException("no customer 10"));
        }
      }
      if (killing.compareAndSet(false, true)) {
        long connectionId = workerConnectionId();
        jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
            .registerInterposedSynchronization(new Synchronization() {
              @Override
              public void beforeCompletion() {
                heardBeforeTheKill.set(DeadMessageObserver.HEARD.size());
                killed.set(kill(connectionId));
              }

              @Override
              public void afterCompletion(int status) {}
            });
      }
    });
    long id = publish("lost", "customer-10");

    awaitDead(id);
    assertThat(killed.get()).isEqualTo("killed");
    assertThat(heardBeforeTheKill.get()).as("nothing heard before the commit").isZero();
    Eventually.until(WAIT, "the observer hears of the death once it is committed",
        () -> !DeadMessageObserver.heardOf(id).isEmpty(), logs::dump);
    assertThat(ScriptedRelay.timesHanded(id)).as("handed again after the lost commit").isGreaterThanOrEqualTo(2);
    Thread.sleep(300);
    assertThat(DeadMessageObserver.heardOf(id)).as("heard once, for the committed death only").hasSize(1);
    assertThat(DeadMessageObserver.heardOf(id).get(0).committedStatus()).isEqualTo("DEAD");
  }

  // ---- helpers ----

  private long publish(String outboxName, String group) throws Exception {
    return container.inTransaction(() -> outbox.publish(outboxName, Headered.key(group)));
  }

  /** Publishes a message whose every relay attempt fails with {@code failure}. */
  private long publishFailing(String outboxName, String group, RuntimeException failure) throws Exception {
    // Scripted before the commit: no worker can see the message earlier.
    return container.inTransaction(() -> {
      long id = outbox.publish(outboxName, Headered.key(group));
      failures.fail(id, failure);
      return id;
    });
  }

  private void awaitDead(long id) {
    Eventually.until(WAIT, "message " + id + " is dead", () -> "DEAD".equals(Rows.status(database(), id)),
        () -> "row " + Rows.message(database(), id) + ", " + logs.dump());
  }

  private String lastError(long id) {
    return (String) Rows.message(database(), id).get("last_error");
  }

  /** The id of the connection the worker's transaction uses: the pool hands the transaction its own connection again. */
  private long workerConnectionId() throws Exception {
    try (Connection connection = container.dataSource().getConnection(); Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(connectionIdSql())) {
      result.next();
      return result.getLong(1);
    }
  }

  private String kill(long connectionId) {
    try (Connection connection = database().connect(); Statement statement = connection.createStatement()) {
      statement.execute(killSql(connectionId));
      return "killed";
    } catch (Exception e) {
      return "kill failed: " + e;
    }
  }
}
