package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.RejectingScheduler;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.TestNaming;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Regression tests of faults inside a worker's batch: issue 11 ("What happens today" 2; "Deliver"
 * 2: recording a failure never fails the batch, a record that cannot be decoded fails alone, each
 * way a relay breaks the contract is handled and logged) and issue 10 ("What happens today" 3 and
 * 4: a worker never dies silently, an unknown commit outcome is reported as such).
 *
 * <p>One outbox per scenario, one partition each, all relayed by the {@link ScriptedRelay}; the
 * workers run on a scheduler the test can make refuse a run, found through JNDI as an application
 * server's ManagedScheduledExecutorService would be.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WorkerFaultContractTest {

  static final Duration WAIT = Duration.ofSeconds(15);
  private static final String EXECUTOR = "java:comp/env/concurrent/OutboxerTestScheduler";

  OutboxTestContainer container;
  Outbox outbox;
  private OutboxMetricsProbe metrics;
  private RejectingScheduler scheduler;
  private AutoCloseable naming;
  LogCapture logs;

  abstract TestDatabase database();

  /**
   * Whether the scripted relay says it does not use the worker's transaction, and the container
   * goes through the data source: the batches then run in plain database transactions, where the
   * tests of what a relay does to the worker's JTA transaction do not apply (there is none).
   */
  boolean plainWorkerTransactions() {
    return false;
  }

  private OutboxTestContainer.Builder builder() {
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(database());
    return plainWorkerTransactions() ? builder.viaDataSource() : builder;
  }

  private void assumeWorkerJtaTransaction() {
    org.junit.jupiter.api.Assumptions.assumeFalse(plainWorkerTransactions(), "the batches run in plain database"
        + " transactions: the relay is called without a JTA transaction");
  }

  /** A query returning the id of the connection it runs on. */
  abstract String connectionIdSql();

  /** A statement that kills the connection with this id. */
  abstract String killSql(long connectionId);

  /** A query counting connections with the id given as its parameter. */
  abstract String connectionCountSql();

  /** Why a connection of this database cannot be killed from another connection, or null if it can. */
  String whyConnectionsCannotBeKilled() {
    return null;
  }

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    ScriptedRelay.useWorkerTransaction(!plainWorkerTransactions());
    scheduler = new RejectingScheduler(8);
    naming = TestNaming.install();
    TestNaming.bind(EXECUTOR, scheduler);
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.worker.executor", EXECUTOR);
    outbox(config, "nul", "2", "100ms");
    outbox(config, "breach", "infinity", "1m");
    outbox(config, "corrupt", "infinity", "1m");
    outbox(config, "sched", "infinity", "1m");
    outbox(config, "unknown", "infinity", "1m");
    // One outbox per kind of relay breach warned of at most once a minute per partition.
    outbox(config, "thrower", "infinity", "1m");
    // One each for relays that throw exceptions that cannot describe themselves (each warned of once a minute).
    outbox(config, "throws-assertion", "infinity", "1m");
    outbox(config, "throws-overflow", "infinity", "1m");
    outbox(config, "throws-error", "infinity", "1m");
    outbox(config, "silent", "infinity", "1m");
    outbox(config, "slow", "infinity", "1m");
    config.put("outbox.slow.relay-timeout", "1s");
    outbox(config, "doomed", "infinity", "1m");
    // A relay that leaves the worker's transaction otherwise than it found it: its lease is long, so a partition
    // that waits for the transaction manager to time the transaction out shows as a stall.
    outbox(config, "tamper", "infinity", "100ms");
    config.put("outbox.tamper.transaction-timeout", "60s");
    config.put("outbox.doomed.relay-timeout", "1s");
    container = builder().config(config)
        .beans(ScriptedRelay.class, OutboxMetricsProbe.class).start();
    outbox = container.select(Outbox.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  private static void outbox(Map<String, String> config, String name, String maxAttempts, String backoff) {
    config.put("outbox." + name + ".relay", "scripted");
    config.put("outbox." + name + ".max-attempts", maxAttempts);
    config.put("outbox." + name + ".backoff.min", backoff);
    config.put("outbox." + name + ".backoff.max", backoff);
    config.put("outbox." + name + ".poll-interval", "100ms");
    config.put("outbox." + name + ".max-poll-interval", "200ms");
  }

  @AfterAll
  void stop() throws Exception {
    ScriptedRelay.reset();
    ScriptedRelay.useWorkerTransaction(true);
    if (container != null) {
      container.close();
    }
    naming.close();
    scheduler.shutdownNow();
  }

  @BeforeEach
  void clean() {
    logs = LogCapture.start();
    ScriptedRelay.reset();
    Rows.clear(database());
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    scheduler.disarm();
    Rows.clear(database());
    logs.close();
  }

  // ---- issue 11, today 2: recording a failure can never fail the batch ----

  @Test
  void a_relay_failure_whose_text_contains_nul_is_recorded_and_the_confirmed_messages_go_out_once() throws Exception {
    assertAFailureIsRecordedAndTheRestGoesOutOnce(new IllegalStateException("broker said \u0000 no"));
  }

  @Test
  void a_relay_failure_whose_message_cannot_even_be_read_is_recorded_and_the_confirmed_messages_go_out_once()
      throws Exception {
    assertAFailureIsRecordedAndTheRestGoesOutOnce(new IllegalStateException() {
      @Override
      public String getMessage() {
        throw new UnsupportedOperationException("this exception cannot describe itself");
      }
    });
  }

  @Test
  void a_relay_failure_text_of_megabytes_is_recorded_capped_and_the_confirmed_messages_go_out_once()
      throws Exception {
    assertAFailureIsRecordedAndTheRestGoesOutOnce(new IllegalStateException("\u0000\uD800 broker says: "
        + "no ".repeat(2_000_000)));
  }

  // ---- issue 24, today 1: a failure that cannot describe itself ----

  @Test
  void a_relay_failure_whose_message_throws_an_assertion_error_is_recorded_and_the_confirmed_messages_go_out_once()
      throws Exception {
    assertAFailureIsRecordedAndTheRestGoesOutOnce(new Undescribable(() -> new AssertionError("no description")));
  }

  @Test
  void a_relay_failure_whose_description_overflows_the_stack_is_recorded_and_the_confirmed_messages_go_out_once()
      throws Exception {
    assertAFailureIsRecordedAndTheRestGoesOutOnce(new SelfDescribing());
  }

  @Test
  void a_relay_that_throws_an_exception_whose_message_throws_fails_only_its_unreported_records() throws Exception {
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.send(batch, batch.records().get(0), node);
      throw new Undescribable(() -> new AssertionError("no description"));
    });
    List<Long> ids = publishTwo("throws-assertion");

    assertFirstDeletedAndSecondFailedWith(ids, Undescribable.class.getName() + " [its description failed");
    assertWarned(Undescribable.class.getName());
    assertThat(ScriptedRelay.deliveryCounts()).as("times each message was sent").containsEntry(ids.get(0), 1L);
  }

  @Test
  void a_relay_that_throws_an_exception_whose_description_overflows_the_stack_fails_only_its_unreported_records()
      throws Exception {
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.send(batch, batch.records().get(0), node);
      throw new SelfDescribing();
    });
    List<Long> ids = publishTwo("throws-overflow");

    assertFirstDeletedAndSecondFailedWith(ids, SelfDescribing.class.getName() + " [its description failed");
    assertWarned(SelfDescribing.class.getName());
    assertThat(ScriptedRelay.deliveryCounts()).as("times each message was sent").containsEntry(ids.get(0), 1L);
  }

  @Test
  void a_relay_that_throws_an_assertion_error_whose_message_throws_fails_only_its_unreported_records()
      throws Exception {
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.send(batch, batch.records().get(0), node);
      throw new AssertionError() {
        @Override
        public String getMessage() {
          throw new AssertionError("no description");
        }
      };
    });
    List<Long> ids = publishTwo("throws-error");

    assertFirstDeletedAndSecondFailedWith(ids, "[its description failed");
    assertWarned("[its description failed: java.lang.AssertionError]");
    assertThat(ScriptedRelay.deliveryCounts()).as("times each message was sent").containsEntry(ids.get(0), 1L);
  }

  /** An exception whose every description throws what it is given. */
  static final class Undescribable extends IllegalStateException {
    private final transient java.util.function.Supplier<? extends Error> error;

    Undescribable(java.util.function.Supplier<? extends Error> error) {
      this.error = error;
    }

    @Override
    public String getMessage() {
      throw error.get();
    }
  }

  /** An exception whose description calls itself until the stack overflows. */
  static final class SelfDescribing extends IllegalStateException {
    @Override
    public String getMessage() {
      return "see " + this;
    }
  }

  private void assertAFailureIsRecordedAndTheRestGoesOutOnce(Exception cause) throws Exception {
    AtomicLong poison = new AtomicLong(-1);
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (record.id() == poison.get()) {
          batch.fail(record, cause);
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
    });
    List<Long> ids = container.inTransaction(() -> {
      long first = outbox.publish("nul", Headered.key("a"));
      poison.set(outbox.publish("nul", Headered.key("b")));
      return List.of(first, poison.get(), outbox.publish("nul", Headered.key("c")));
    });
    long good1 = ids.get(0);
    long good2 = ids.get(2);

    Eventually.until(WAIT, "the failing message dies after max-attempts=2",
        () -> "DEAD".equals(Rows.status(database(), poison.get())),
        () -> "poison row " + Rows.message(database(), poison.get()) + ", sends " + ScriptedRelay.deliveryCounts()
            + ", " + logs.dump());
    assertThat(Rows.attempts(database(), poison.get())).isEqualTo(2);
    String recorded = (String) Rows.message(database(), poison.get()).get("last_error");
    assertThat(recorded).doesNotContain("\u0000");
    assertThat(recorded.length()).as("recorded failure text, capped to the column").isBetween(1, 2000);
    Eventually.until(WAIT, "the confirmed messages are deleted",
        () -> Rows.message(database(), good1) == null && Rows.message(database(), good2) == null,
        () -> "sends " + ScriptedRelay.deliveryCounts());
    assertThat(ScriptedRelay.deliveryCounts()).as("times each message was sent")
        .containsEntry(good1, 1L).containsEntry(good2, 1L);
  }

  // ---- issue 11, deliver 2: a relay breaking the contract ----

  @Test
  void a_relay_confirming_a_record_that_is_not_in_the_batch_is_ignored_with_a_warning_and_the_batch_commits()
      throws Exception {
    OutboxRecord stranger = new OutboxRecord(987_654_321L, "breach", 0, "elsewhere", "Headered", "application/json",
        new byte[0], Map.of(), 0, Instant.now());
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        ScriptedRelay.send(batch, record, node);
        if (record == batch.records().get(0)) {
          batch.confirm(stranger);
        }
      }
    });
    List<Long> ids = publishTwo("breach");

    assertBothSentOnceAndDeleted(ids);
    assertWarned(String.valueOf(stranger.id()));
  }

  @Test
  void a_relay_confirming_a_record_twice_is_ignored_with_a_warning_and_the_batch_commits() throws Exception {
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        ScriptedRelay.send(batch, record, node);
        batch.confirm(record);
      }
    });
    List<Long> ids = publishTwo("breach");

    assertBothSentOnceAndDeleted(ids);
    assertWarned(String.valueOf(ids.get(0)));
  }

  @Test
  void a_relay_reporting_after_it_returned_is_ignored_with_a_warning() throws Exception {
    AtomicReference<RelayBatch> kept = new AtomicReference<>();
    ScriptedRelay.script((batch, node) -> {
      kept.set(batch);
      ScriptedRelay.send(batch, batch.records().get(0), node);
    });
    List<Long> ids = publishTwo("breach");
    Eventually.until(WAIT, "the confirmed record is deleted and the unreported one failed",
        () -> Rows.message(database(), ids.get(0)) == null && Rows.attempts(database(), ids.get(1)) == 1,
        () -> "rows " + Rows.message(database(), ids.get(0)) + " / " + Rows.message(database(), ids.get(1)));

    OutboxRecord late = kept.get().records().get(1);
    assertThatCode(() -> kept.get().confirm(late)).as("a late report").doesNotThrowAnyException();
    assertWarned(String.valueOf(late.id()));
    assertThat(Rows.attempts(database(), late.id())).as("the late confirmation changed nothing").isEqualTo(1);
  }

  @Test
  void a_relay_confirming_null_is_ignored_with_a_warning_and_the_batch_commits() throws Exception {
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        ScriptedRelay.send(batch, record, node);
        if (record == batch.records().get(0)) {
          batch.confirm(null);
        }
      }
    });
    List<Long> ids = publishTwo("breach");

    assertBothSentOnceAndDeleted(ids);
    assertWarned("null");
  }

  @Test
  void a_relay_that_throws_fails_only_its_unreported_records_and_says_so_at_warning() throws Exception {
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.send(batch, batch.records().get(0), node);
      throw new java.io.IOException("broker went away");
    });
    List<Long> ids = publishTwo("thrower");

    assertFirstDeletedAndSecondFailedWith(ids, "broker went away");
    assertWarned("broker went away");
  }

  @Test
  void a_relay_that_returns_without_reporting_fails_the_unreported_records_and_says_so_at_warning()
      throws Exception {
    ScriptedRelay.script((batch, node) -> ScriptedRelay.send(batch, batch.records().get(0), node));
    List<Long> ids = publishTwo("silent");

    assertFirstDeletedAndSecondFailedWith(ids, "returned without reporting");
    assertWarned("returned without reporting");
  }

  @Test
  void a_relay_that_returns_after_its_timeout_fails_the_unreported_records_and_says_so_at_warning()
      throws Exception {
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.send(batch, batch.records().get(0), node);
      // Ignores the watchdog's interrupt, as a relay stuck in a blocking call that is deaf to interrupts.
      long until = System.nanoTime() + Duration.ofMillis(1_800).toNanos();
      while (System.nanoTime() < until) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException ignored) {
          // keep hanging
        }
      }
    });
    List<Long> ids = publishTwo("slow");

    assertFirstDeletedAndSecondFailedWith(ids, "did not report within outbox.slow.relay-timeout=1s");
    assertWarned("relay-timeout");
  }

  @Test
  void a_relay_that_marks_the_transaction_for_rollback_and_outlives_its_timeout_is_charged_for_the_record_it_was_on()
      throws Exception {
    assumeWorkerJtaTransaction();
    // As the local relay does with a handler slower than relay-timeout: the record's work cannot commit without its
    // report, so the relay dooms the transaction and returns late, having reported nothing for it. It used to be
    // read again forever, never charged an attempt, and the partition never got past it.
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if ("b".equals(record.groupKey())) {
          jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry().setRollbackOnly();
          hangDeafToInterrupts(Duration.ofMillis(1_800));
          return;
        }
        ScriptedRelay.send(batch, record, node);
      }
    });
    List<Long> ids = publishTwo("doomed");

    assertFirstDeletedAndSecondFailedWith(ids, "did not report within outbox.doomed.relay-timeout=1s");
    assertThat(ScriptedRelay.deliveryCounts().get(ids.get(0))).as("sent in the rolled-back batch and again")
        .isEqualTo(2L);
  }

  // ---- issue 24, today 5: a relay that suspends, replaces or ends the worker's transaction ----

  @Test
  void a_relay_that_suspends_the_workers_transaction_is_warned_of_at_once_and_the_batch_goes_out_again()
      throws Exception {
    assumeWorkerJtaTransaction();
    assertTamperingIsCaught("suspended", () -> {
      com.arjuna.ats.jta.TransactionManager.transactionManager().suspend();
    });
  }

  @Test
  void a_relay_that_replaces_the_workers_transaction_is_warned_of_at_once_and_the_batch_goes_out_again()
      throws Exception {
    assertTamperingIsCaught("replaced", () -> {
      com.arjuna.ats.jta.TransactionManager.transactionManager().suspend();
      com.arjuna.ats.jta.UserTransaction.userTransaction().begin();
    });
  }

  @Test
  void a_relay_that_commits_the_workers_transaction_is_warned_of_at_once_and_the_batch_goes_out_again()
      throws Exception {
    assumeWorkerJtaTransaction();
    assertTamperingIsCaught("ended", () -> com.arjuna.ats.jta.UserTransaction.userTransaction().commit());
  }

  /**
   * The first batch's relay sends everything, then tampers with the transaction; later batches are
   * relayed normally. The partition must not wait for the 60 s transaction timeout.
   */
  private void assertTamperingIsCaught(String how, Tampering tampering) throws Exception {
    AtomicBoolean tampered = new AtomicBoolean();
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.sendAll(batch, node);
      if (tampered.compareAndSet(false, true)) {
        tampering.tamper();
      }
    });
    List<Long> ids = publishTwo("tamper");

    Eventually.until(Duration.ofSeconds(10), "the batch is relayed again and deleted, well before the transaction"
        + " timeout", () -> ids.stream().allMatch(id -> Rows.message(database(), id) == null),
        () -> "rows " + ids.stream().map(id -> Rows.message(database(), id)).toList() + ", sends "
            + ScriptedRelay.deliveryCounts() + ", " + logs.dump());
    assertThat(tampered).isTrue();
    assertThat(logs.messages(Level.WARNING)).as("WARNING records; " + logs.dump()).anySatisfy(message ->
        assertThat(message).contains("Outbox 'tamper'", "partition 0", "relay 'scripted'", how));
    assertThat(ScriptedRelay.deliveryCounts()).as("sent in the tampered batch and once more")
        .containsEntry(ids.get(0), 2L).containsEntry(ids.get(1), 2L);
    long later = container.inTransaction(() -> outbox.publish("tamper", Headered.key("c")));
    Eventually.until(WAIT, "the worker thread goes on relaying", () -> Rows.message(database(), later) == null,
        logs::dump);
  }

  @FunctionalInterface
  private interface Tampering {
    void tamper() throws Exception;
  }

  private static void hangDeafToInterrupts(Duration duration) {
    long until = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < until) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException ignored) {
        // keep hanging
      }
    }
  }

  private void assertFirstDeletedAndSecondFailedWith(List<Long> ids, String error) {
    Eventually.until(WAIT, "the confirmed record is deleted and the unreported one failed once",
        () -> Rows.message(database(), ids.get(0)) == null && Rows.attempts(database(), ids.get(1)) == 1,
        () -> "rows " + Rows.message(database(), ids.get(0)) + " / " + Rows.message(database(), ids.get(1)) + ", "
            + logs.dump());
    assertThat((String) Rows.message(database(), ids.get(1)).get("last_error")).contains(error);
  }

  private List<Long> publishTwo(String outboxName) throws Exception {
    return container.inTransaction(() -> List.of(
        outbox.publish(outboxName, Headered.key("a")), outbox.publish(outboxName, Headered.key("b"))));
  }

  private void assertBothSentOnceAndDeleted(List<Long> ids) {
    Eventually.until(WAIT, "both records of the batch are deleted (their real outcomes committed)",
        () -> ids.stream().allMatch(id -> Rows.message(database(), id) == null),
        () -> "rows " + ids.stream().map(id -> Rows.message(database(), id)).toList() + ", " + logs.dump());
    assertThat(ScriptedRelay.deliveryCounts()).containsEntry(ids.get(0), 1L).containsEntry(ids.get(1), 1L);
  }

  private void assertWarned(String word) {
    assertThat(logs.messages(Level.WARNING)).as("WARNING records; " + logs.dump())
        .anySatisfy(message -> assertThat(message).contains(word));
  }

  // ---- issue 11, deliver 2: a record that cannot be decoded fails alone ----

  @Test
  void a_record_whose_stored_headers_cannot_be_decoded_fails_alone_and_holds_back_only_its_group() throws Exception {
    assertAnUndeliverableRecordFailsAlone("{not json");
  }

  @Test
  void a_stored_record_with_a_null_header_value_fails_alone_and_holds_back_only_its_group() throws Exception {
    // What today's publish accepts and stores for headers {x=null} (issue 11, today 1); such rows
    // may still be in a table after an upgrade.
    assertAnUndeliverableRecordFailsAlone("{\"x\":null}");
  }

  private void assertAnUndeliverableRecordFailsAlone(String storedHeaders) throws Exception {
    assumeWorkerJtaTransaction(); // it writes the row through the container's EntityManager
    List<Long> ids = container.inTransaction(() -> {
      List<Long> published = List.of(
          outbox.publish("corrupt", Headered.key("A")),
          outbox.publish("corrupt", Headered.key("B")),
          outbox.publish("corrupt", Headered.key("A")));
      // Write the first row's headers inside the publishing transaction: no worker ever saw it intact.
      container.entityManager().flush();
      try (Connection connection = container.dataSource().getConnection();
          PreparedStatement update = connection.prepareStatement("UPDATE outbox_message SET headers = ? WHERE id = ?")) {
        update.setString(1, storedHeaders);
        update.setLong(2, published.get(0));
        assertThat(update.executeUpdate()).isEqualTo(1);
      }
      return published;
    });
    long broken = ids.get(0);
    long otherGroup = ids.get(1);
    long sameGroup = ids.get(2);

    Eventually.until(WAIT, "the other group's message is relayed",
        () -> Rows.message(database(), otherGroup) == null,
        () -> "sends " + ScriptedRelay.deliveryCounts() + ", broken row " + Rows.message(database(), broken) + ", "
            + logs.dump());
    Eventually.until(WAIT, "the undeliverable message failed once",
        () -> Rows.attempts(database(), broken) == 1, () -> "row " + Rows.message(database(), broken));
    assertThat(Rows.attempts(database(), sameGroup)).as("held back, not attempted").isZero();
    assertThat(ScriptedRelay.deliveryCounts()).doesNotContainKeys(broken, sameGroup);
  }

  // ---- issue 10, today 3: a worker never dies silently ----

  @Test
  void a_partition_whose_next_run_the_scheduler_refuses_keeps_being_worked_and_says_so_at_warning() throws Exception {
    // Warm up: the partition's first runs parse their queries, which takes seconds on a busy machine.
    long warmUp = container.inTransaction(() -> outbox.publish("sched", Headered.key("s")));
    Eventually.until(WAIT, "the partition works before the test", () -> Rows.message(database(), warmUp) == null,
        logs::dump);
    List<Long> ids = new ArrayList<>();
    // The wake-up after a commit schedules the partition's next run from the committing thread:
    // refuse that call. If the worker happened to be running, it was not scheduled: try again.
    for (int attempt = 0; attempt < 50 && !scheduler.hasRejected(); attempt++) {
      scheduler.rejectNextScheduleFrom(Thread.currentThread());
      ids.add(container.inTransaction(() -> outbox.publish("sched", Headered.key("s"))));
      Thread.sleep(50);
    }
    scheduler.disarm();
    assertThat(scheduler.hasRejected()).as("the scheduler refused a run").isTrue();
    for (int i = 0; i < 3; i++) {
      ids.add(container.inTransaction(() -> outbox.publish("sched", Headered.key("s"))));
    }

    Eventually.until(WAIT, "every message published after the refusal is relayed",
        () -> ids.stream().allMatch(id -> Rows.message(database(), id) == null),
        () -> "pending " + ids.stream().filter(id -> Rows.message(database(), id) != null).toList() + ", " + logs.dump());
    assertThat(logs.messages(Level.WARNING)).as("WARNING records; " + logs.dump())
        .anySatisfy(message -> assertThat(message).contains("sched").contains("partition 0"));
  }

  // ---- issue 10, today 4: a commit whose outcome is unknown ----

  @Test
  void a_commit_whose_connection_dies_is_reported_as_unknown_outcome_not_as_nothing_committed() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(whyConnectionsCannotBeKilled() == null, whyConnectionsCannotBeKilled());
    assumeWorkerJtaTransaction(); // it kills the connection from a JTA synchronization of the worker's transaction
    long relayedBefore = metrics.count("outbox.relayed", "unknown");
    AtomicBoolean killing = new AtomicBoolean();
    AtomicReference<String> killed = new AtomicReference<>();
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.sendAll(batch, node);
      if (batch.outbox().equals("unknown") && killing.compareAndSet(false, true)) {
        long connectionId = workerConnectionId();
        // Just before the commit, from another connection: the worker cannot know whether it committed.
        jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
            .registerInterposedSynchronization(new Synchronization() {
              @Override
              public void beforeCompletion() {
                killed.set(kill(connectionId));
              }

              @Override
              public void afterCompletion(int status) {}
            });
      }
    });
    List<Long> ids = container.inTransaction(() -> List.of(outbox.publish("unknown", Headered.key("u1")),
        outbox.publish("unknown", Headered.key("u2")), outbox.publish("unknown", Headered.key("u3"))));

    Eventually.until(WAIT, "the worker reports the batch whose commit lost its connection",
        () -> killed.get() != null && !logs.atLeast(Level.WARNING).isEmpty(), logs::dump);
    assertThat(killed.get()).isEqualTo("killed");
    String report = logs.messages(Level.WARNING).get(0);
    assertThat(report).as("the first WARNING; " + logs.dump()).contains("may be delivered again")
        .contains(ids.stream().map(String::valueOf).toList());
    Eventually.until(WAIT, "outbox.commit.unknown counts the batch",
        () -> metrics.count("outbox.commit.unknown", "unknown") == 1, logs::dump);
    Eventually.until(WAIT, "the batch is delivered again and deleted",
        () -> ids.stream().allMatch(id -> Rows.message(database(), id) == null), logs::dump);
    assertThat(metrics.count("outbox.relayed", "unknown") - relayedBefore)
        .as("outbox.relayed counts the committed delivery only").isEqualTo(3);
    assertThat(logs.messages(Level.ALL)).as(logs.dump())
        .noneSatisfy(message -> assertThat(message).containsPattern("(?i)nothing (of it )?(was )?committed"));
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
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < deadline) {
        try (PreparedStatement alive = connection.prepareStatement(connectionCountSql())) {
          alive.setLong(1, connectionId);
          try (ResultSet result = alive.executeQuery()) {
            result.next();
            if (result.getLong(1) == 0) {
              return "killed";
            }
          }
        }
        Thread.sleep(20);
      }
      return "still alive after 5s";
    } catch (Exception e) {
      return "kill failed: " + e;
    }
  }
}
