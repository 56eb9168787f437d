package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TimeZone;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Regression tests of issue 11 ("What happens today" 4; "Deliver" 4): times are UTC end to end,
 * whatever the JVM's and the database session's time zones. The JVM runs in Europe/Berlin (and the
 * database session too, where the database can), and the container's clock stands at times whose
 * UTC fields fall into Berlin's DST gap of 2026-03-29 (02:00 to 03:00 local time does not exist):
 * a UTC time bound as a local date-time there is moved by an hour.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TimeZoneContractTest {

  static final String ZONE = "Europe/Berlin";
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final Duration BACKOFF = Duration.ofMinutes(30);

  private TimeZone previousZone;
  private OutboxTestContainer container;
  private Outbox outbox;

  abstract TestDatabase database();

  /** Makes the database sessions the container opens use {@link #ZONE}, if the database can; returns how to undo it. */
  abstract Runnable useSessionZone();

  /** The time zone of a new session of the container's pool, as the database reports it. */
  abstract String sessionZone() throws Exception;

  /** Whether the database has a session time zone at all (SQLite has none). */
  boolean hasSessionZone() {
    return true;
  }

  private Runnable undoSessionZone = () -> {};

  @BeforeAll
  void start() {
    previousZone = TimeZone.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone(ZONE));
    undoSessionZone = useSessionZone();
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config("outbox.tz.relay", "scripted")
        .config("outbox.tz.partitions", "1")
        .config("outbox.tz.backoff.min", "30m")
        .config("outbox.tz.backoff.max", "30m")
        .config("outbox.tz.poll-interval", "100ms")
        .config("outbox.tz.max-poll-interval", "200ms")
        .beans(ScriptedRelay.class)
        .start();
    outbox = container.select(Outbox.class);
  }

  @AfterAll
  void stop() {
    ScriptedRelay.reset();
    try {
      if (container != null) {
        container.close();
      }
    } finally {
      undoSessionZone.run();
      TimeZone.setDefault(previousZone);
    }
  }

  @BeforeEach
  void clean() {
    ScriptedRelay.reset();
    Rows.clear(database());
    // The first attempt of every message fails; the retry goes through.
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (record.attempts() == 0) {
          batch.fail(record, new IllegalStateException("first attempt fails"));
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
    });
  }

  @AfterEach
  void quiet() {
    container.clock().unfreeze();
    ScriptedRelay.reset();
    Rows.clear(database());
  }

  @Test
  void the_jvm_runs_in_a_zone_with_daylight_saving_time() throws Exception {
    assertThat(TimeZone.getDefault().getID()).isEqualTo(ZONE);
    assertThat(TimeZone.getDefault().observesDaylightTime()).isTrue();
    System.out.println(getClass().getSimpleName() + ": database session time zone " + sessionZone());
  }

  @Test
  void the_database_session_runs_in_the_same_zone_with_daylight_saving_time() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(hasSessionZone(), sessionZone());
    assertThat(sessionZone()).as("the session time zone of " + database()).contains(ZONE);
  }

  @Test
  void a_retry_time_in_the_dst_gap_is_stored_as_the_exact_utc_instant_and_its_backoff_is_honoured() throws Exception {
    // Fails at 02:00Z; the retry at 02:30Z has UTC fields inside the gap.
    assertStoredInUtcAndRetriedAfterTheBackoff(Instant.parse("2026-03-29T02:00:00Z"));
  }

  @Test
  void a_failure_inside_the_dst_gap_waits_its_full_30_minute_backoff() throws Exception {
    // Fails at 02:40Z (UTC fields inside the gap); the retry is due at 03:10Z.
    assertStoredInUtcAndRetriedAfterTheBackoff(Instant.parse("2026-03-29T02:40:00Z"));
  }

  /** Every part is checked, so that a failure shows all that is wrong at once. */
  private void assertStoredInUtcAndRetriedAfterTheBackoff(Instant failedAt) throws Exception {
    long id = publishAndFailOnceAt(failedAt);
    Map<String, Object> row = Rows.message(database(), id);
    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(row.get("last_attempt_at")).as("last_attempt_at").isEqualTo(failedAt);
    softly.assertThat(row.get("next_attempt_at")).as("next_attempt_at").isEqualTo(failedAt.plus(BACKOFF));

    // Not retried before 30 minutes of clock time, retried once they passed.
    pollFor(Duration.ofSeconds(1));
    softly.assertThat(ScriptedRelay.timesHanded(id)).as("times handed right after the failure").isEqualTo(1);
    container.clock().advance(BACKOFF.minusMinutes(1));
    pollFor(Duration.ofSeconds(1));
    softly.assertThat(ScriptedRelay.timesHanded(id)).as("times handed 29 minutes after the failure").isEqualTo(1);
    container.clock().advance(Duration.ofMinutes(1));
    try {
      Eventually.until(WAIT, "the message is retried once its 30 minutes passed",
          () -> Rows.message(database(), id) == null, () -> "row " + Rows.message(database(), id));
    } catch (AssertionError notRetried) {
      softly.fail(notRetried.getMessage());
    }
    softly.assertAll();
  }

  /** Stands the clock still at {@code at}, publishes, and waits for the first (failing) attempt. */
  private long publishAndFailOnceAt(Instant at) throws Exception {
    Instant frozen = container.clock().freeze();
    container.clock().advance(Duration.between(frozen, at));
    long id = container.inTransaction(() -> outbox.publish("tz", Headered.key("tz")));
    Eventually.until(WAIT, "the first attempt failed", () -> ScriptedRelay.timesHanded(id) >= 1
        && Rows.attempts(database(), id) != 0, () -> "row " + Rows.message(database(), id));
    return id;
  }

  /** The workers poll every 100 to 200 ms: give them several chances. */
  private static void pollFor(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis());
  }
}
