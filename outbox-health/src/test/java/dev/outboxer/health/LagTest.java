package dev.outboxer.health;

import static dev.outboxer.health.HealthProbe.data;
import static dev.outboxer.health.HealthProbe.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Readiness {@code outbox-lag} on a publish-only node (nothing relays, so messages wait), with the
 * container's settable clock standing in for waiting: the lag is the core's oldest pending age,
 * counted in the database against that clock. Outbox {@code orders} sets a 30 s threshold, {@code
 * audit} none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LagTest {

  private OutboxTestContainer container;
  private HealthProbe probe;
  private Outbox outbox;

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.health.max-lag", "30s")
        .config("outbox.audit.relay", "recording")
        .config("outbox.health.refresh-interval", "200ms")
        .beans(RecordingRelay.class)
        .start();
    probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
    outbox = container.select(Outbox.class);
  }

  @AfterAll
  void stop() {
    container.close();
  }

  @BeforeEach
  void empty() {
    container.tables().deleteAllMessages();
  }

  private JsonObject lagOnceRead(Predicate<JsonObject> condition) {
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> condition.test(probe.readiness(OutboxLagCheck.NAME)));
    return probe.readiness(OutboxLagCheck.NAME);
  }

  private static long age(JsonObject check, String outbox) {
    return data(check).getJsonNumber(outbox + ".oldest-pending-age-seconds").longValue();
  }

  @Test
  void lag_is_reported_per_outbox_and_is_down_only_when_an_outbox_exceeds_its_own_threshold() throws Exception {
    JsonObject empty = lagOnceRead(check -> age(check, "orders") == 0 && data(check).getInt("orders.pending") == 0);
    assertThat(status(empty)).isEqualTo("UP");
    assertThat(data(empty).getJsonNumber("orders.max-lag-seconds").longValue()).isEqualTo(30);
    assertThat(data(empty).containsKey("audit.max-lag-seconds")).isFalse();

    container.inTransaction(() -> {
      outbox.publish("orders", new Ping("g", 1));
      outbox.publish("audit", new Ping("g", 1));
    });
    container.clock().advance(Duration.ofSeconds(20));
    JsonObject below = lagOnceRead(check -> age(check, "orders") >= 20);
    assertThat(status(below)).isEqualTo("UP");
    assertThat(age(below, "audit")).isGreaterThanOrEqualTo(20);

    container.clock().advance(Duration.ofSeconds(15));
    JsonObject above = lagOnceRead(check -> age(check, "orders") >= 35);
    assertThat(status(above)).isEqualTo("DOWN");
    assertThat(data(above).getString("orders.lagging"))
        .contains("has waited 3", "more than outbox.orders.health.max-lag=30s");
    assertThat(age(above, "audit")).as("audit lags as much, without a threshold").isGreaterThanOrEqualTo(35);
    assertThat(data(above).containsKey("audit.lagging")).isFalse();
    assertThat(status(probe.liveness(OutboxWorkersCheck.NAME))).as("publish-only node").isEqualTo("UP");

    container.tables().deleteAllMessages();
    JsonObject drained = lagOnceRead(check -> data(check).getInt("orders.pending") == 0);
    assertThat(status(drained)).isEqualTo("UP");
  }

  @Test
  void a_lag_that_cannot_be_read_is_down_only_for_an_outbox_with_a_threshold() {
    TestDatabase database = container.database();
    database.execute("ALTER TABLE outbox_message RENAME TO outbox_message_away");
    QuietLogs quiet = QuietLogs.of("com.arjuna", "io.agroal", "org.hibernate");
    try {
      JsonObject unreadable = lagOnceRead(check -> data(check).containsKey("orders.error"));
      assertThat(status(unreadable)).isEqualTo("DOWN");
      assertThat(data(unreadable).getString("orders.error")).startsWith("the lag could not be read: ");
      assertThat(data(unreadable).containsKey("audit.error")).isTrue();
    } finally {
      database.execute("ALTER TABLE outbox_message_away RENAME TO outbox_message");
      quiet.close();
    }
    JsonObject readable = lagOnceRead(check -> !data(check).containsKey("orders.error"));
    assertThat(status(readable)).isEqualTo("UP");
  }
}
