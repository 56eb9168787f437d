package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * What an operator reads in the log, on PostgreSQL: one INFO line per outbox at start, a WARNING
 * per dead message (id, group, attempts, last error), a WARNING at most once a minute per
 * partition while groups wait for a retry; and no stack trace for any of these expected failures.
 */
class OperatorLogTest {

  private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

  private static OutboxTestContainer.Builder outbox(String maxAttempts) {
    return OutboxTestContainer.builder(DATABASE)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "1")
        .config("outbox.orders.max-attempts", maxAttempts)
        // The failed message waits an hour: its group stays blocked for the whole test.
        .config("outbox.orders.backoff.min", "1h")
        .config("outbox.orders.backoff.max", "1h")
        .config("outbox.orders.poll-interval", "20ms")
        .config("outbox.orders.max-poll-interval", "50ms")
        .beans(RecordingRelay.class);
  }

  /**
   * The tests' logging.properties keeps the console at WARNING; the start-up line is INFO. Held in a
   * field, because java.util.logging forgets the level of a logger nobody references.
   */
  private static final Logger RUNTIME_LOG = Logger.getLogger(OutboxRuntime.class.getName());

  @Test
  void each_outbox_says_at_start_how_it_runs_in_one_info_line() {
    Level before = RUNTIME_LOG.getLevel();
    RUNTIME_LOG.setLevel(Level.INFO);
    try (LogCapture log = LogCapture.start(); OutboxTestContainer container = outbox("3").start()) {
      assertThat(log.messages(Level.INFO)).as(log.dump()).filteredOn(line -> line.startsWith("Outbox 'orders':"))
          .singleElement().satisfies(line -> assertThat(line)
              .contains("relay recording", "ordering group", "1 partition(s) in force", "workers executor",
                  "max-attempts 3", "database postgresql", "schema "));
    } finally {
      RUNTIME_LOG.setLevel(before);
    }
  }

  @Test
  void a_dead_message_is_logged_once_with_its_id_group_attempts_and_last_error_and_no_stack_trace()
      throws Exception {
    try (LogCapture log = LogCapture.start(); OutboxTestContainer container = outbox("1").start()) {
      RecordingRelay relay = container.select(RecordingRelay.class);
      relay.failGroup("customer-7");
      long id = container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Keyed("customer-7", 1)));

      Eventually.until(Duration.ofSeconds(30), "a WARNING that message " + id + " is dead",
          () -> !deaths(log).isEmpty(), log::dump);
      relay.awaitHanded(1);
      assertThat(deaths(log)).as(log.dump()).singleElement().satisfies(record -> {
        assertThat(formatted(record)).contains("Outbox 'orders', partition 0: message " + id
            + " of group 'customer-7' is dead after 1 failed attempt(s) (outbox.orders.max-attempts=1)",
            "Last error: ", "induced failure of message " + id, "OutboxAdmin.retryDead");
        assertThat(record.getThrown()).as("an expected failure logs no stack trace").isNull();
      });
      assertNoStackTraces(log);
    }
  }

  @Test
  void a_group_key_with_a_line_break_is_logged_escaped_so_it_cannot_forge_a_log_line() throws Exception {
    String forged = "customer-9\nOutbox 'orders', partition 0: everything is fine\r\u0007";
    try (LogCapture log = LogCapture.start(); OutboxTestContainer container = outbox("1").start()) {
      RecordingRelay relay = container.select(RecordingRelay.class);
      relay.failGroup(forged);
      long id = container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Keyed(forged, 1)));

      Eventually.until(Duration.ofSeconds(30), "a WARNING that message " + id + " is dead",
          () -> !deaths(log).isEmpty(), log::dump);
      assertThat(deaths(log)).as(log.dump()).singleElement().satisfies(record -> assertThat(formatted(record))
          .contains("message " + id + " of group 'customer-9\\u000AOutbox 'orders', partition 0: everything is"
              + " fine\\u000D\\u0007' is dead after 1 failed attempt(s)")
          .doesNotContain("\n", "\r", "\u0007"));
    }
  }

  @Test
  void a_group_blocked_by_a_retry_is_warned_about_at_most_once_a_minute_per_partition_without_a_stack_trace()
      throws Exception {
    try (LogCapture log = LogCapture.start(); OutboxTestContainer container = outbox("infinity").start()) {
      RecordingRelay relay = container.select(RecordingRelay.class);
      relay.failGroup("customer-8");
      Outbox outbox = container.select(Outbox.class);
      long first = container.inTransaction(() -> outbox.publish("orders", new Keyed("customer-8", 1)));
      container.inTransaction(() -> outbox.publish("orders", new Keyed("customer-8", 2)));

      Eventually.until(Duration.ofSeconds(30), "a WARNING that a group waits for a retry",
          () -> !blocked(log).isEmpty(), log::dump);
      // Many more polls of the partition (20-50ms apart), each of which finds the group still blocked.
      for (int i = 0; i < 10; i++) {
        container.inTransaction(() -> outbox.publish("orders", new Keyed("other-" + System.nanoTime(), 0)));
        Thread.sleep(100);
      }
      relay.awaitConfirmations(10);

      assertThat(blocked(log)).as(log.dump()).singleElement().satisfies(record -> {
        assertThat(formatted(record)).contains("Outbox 'orders', partition 0: 1 message(s) wait for a retry and hold"
            + " back the rest of their group, for example message " + first + " of group 'customer-8', next attempt"
            + " at ", "OutboxAdmin.blockedGroups(\"orders\", n)", "at most once a minute per partition");
        assertThat(record.getThrown()).isNull();
      });
      assertNoStackTraces(log);
    }
  }

  private static List<LogRecord> deaths(LogCapture log) {
    return log.atLeast(Level.WARNING).stream().filter(record -> formatted(record).contains(" is dead after ")).toList();
  }

  private static List<LogRecord> blocked(LogCapture log) {
    return log.atLeast(Level.WARNING).stream().filter(record -> formatted(record).contains("wait for a retry")).toList();
  }

  /** A relay's refusal is an expected failure: nothing at INFO or above carries a stack trace. */
  private static void assertNoStackTraces(LogCapture log) {
    assertThat(log.atLeast(Level.INFO)).as(log.dump()).allSatisfy(record -> assertThat(record.getThrown())
        .as(formatted(record)).isNull());
  }

  private static String formatted(LogRecord record) {
    return new java.util.logging.SimpleFormatter().formatMessage(record);
  }
}
