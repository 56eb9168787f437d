package dev.outboxer.cdi.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Timer;
import org.junit.jupiter.api.Test;

/** The outbox metrics reach the application's MetricRegistry, tagged by outbox. */
class MetricsTest {

  @Test
  void counters_gauges_and_the_batch_timer_follow_what_the_outbox_does() throws Exception {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.metrics.refresh-interval", "100ms")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.poll-interval", "50ms")
        .config("outbox.letters.relay", "recording")
        .config("outbox.letters.max-attempts", "1")
        .beans(RecordingRelay.class, OutboxMetricsProbe.class)
        .start()) {
      Outbox outbox = container.select(Outbox.class);
      RecordingRelay relay = container.select(RecordingRelay.class);
      OutboxMetricsProbe metrics = container.select(OutboxMetricsProbe.class);
      Set<Long> failing = ConcurrentHashMap.newKeySet();
      relay.failWhen(record -> failing.contains(record.id()));

      container.inTransaction(() -> {
        outbox.publish("orders", new Keyed("a", 1));
        outbox.publish("orders", new Keyed("a", 2));
        failing.add(outbox.publish("orders", new Keyed("stuck", 1)));
        failing.add(outbox.publish("letters", new Keyed("dies", 1)));
      });

      // SmallRye Metrics hands out a timer before it is bound; reading it then throws a NullPointerException.
      await().atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(NullPointerException.class).untilAsserted(() -> {
        assertThat(metrics.count("outbox.published", "orders")).isEqualTo(3);
        assertThat(metrics.count("outbox.relayed", "orders")).isEqualTo(2);
        assertThat(metrics.count("outbox.failed.attempts", "orders")).isGreaterThanOrEqualTo(1);
        assertThat(metrics.count("outbox.dead.lettered", "letters")).isEqualTo(1);
        assertThat(metrics.gauge("outbox.pending", "orders")).isEqualTo(1L);
        assertThat(metrics.gauge("outbox.dead", "letters")).isEqualTo(1L);
        assertThat(metrics.gauge("outbox.oldest.pending.age", "orders").doubleValue()).isGreaterThan(0.0);
        // The timer is updated just after the counters, on the worker's thread.
        Timer batches = metrics.timer("outbox.relay.batch", "orders");
        assertThat(batches).isNotNull();
        assertThat(batches.getCount()).isGreaterThanOrEqualTo(1);
        assertThat(batches.getElapsedTime()).isPositive();
      });
    }
  }

  @Test
  void the_age_of_a_snapshot_held_open_elsewhere_in_the_database_is_a_gauge_and_falls_to_zero_when_it_ends()
      throws Exception {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.metrics.refresh-interval", "100ms")
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class, OutboxMetricsProbe.class)
        .start()) {
      OutboxMetricsProbe metrics = container.select(OutboxMetricsProbe.class);
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(metrics.gauge("outbox.oldest.transaction.age", "orders").doubleValue()).isEqualTo(0.0));
      try (Connection report = TestDatabase.POSTGRESQL.connect(); Statement statement = report.createStatement()) {
        report.setAutoCommit(false);
        report.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        statement.executeQuery("SELECT count(*) FROM outbox_message").close();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
            assertThat(metrics.gauge("outbox.oldest.transaction.age", "orders").doubleValue()).isGreaterThan(1.0));
        report.rollback();
      }
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(metrics.gauge("outbox.oldest.transaction.age", "orders").doubleValue()).isEqualTo(0.0));
    }
  }
}
