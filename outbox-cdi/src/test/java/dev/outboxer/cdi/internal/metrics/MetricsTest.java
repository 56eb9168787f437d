package dev.outboxer.cdi.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Gauge;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The outbox metrics reach the application's MetricRegistry, tagged by outbox. */
class MetricsTest {

  private static final Tag ORDERS = new Tag("outbox", "orders");
  private static final Tag LETTERS = new Tag("outbox", "letters");

  /** Reads the registry the way an application does: injected (a programmatic lookup has no injection point). */
  @ApplicationScoped
  public static class RegistryHolder {
    @Inject MetricRegistry registry;

    MetricRegistry registry() {
      return registry;
    }
  }

  @Test
  void counters_gauges_and_the_batch_timer_follow_what_the_outbox_does() throws Exception {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.metrics.refresh-interval", "100ms")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.poll-interval", "50ms")
        .config("outbox.letters.relay", "recording")
        .config("outbox.letters.max-attempts", "1")
        .beans(RecordingRelay.class, RegistryHolder.class)
        .start()) {
      Outbox outbox = container.select(Outbox.class);
      RecordingRelay relay = container.select(RecordingRelay.class);
      MetricRegistry registry = container.select(RegistryHolder.class).registry();
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
        assertThat(counter(registry, "outbox.published", ORDERS)).isEqualTo(3);
        assertThat(counter(registry, "outbox.relayed", ORDERS)).isEqualTo(2);
        assertThat(counter(registry, "outbox.failed.attempts", ORDERS)).isGreaterThanOrEqualTo(1);
        assertThat(counter(registry, "outbox.dead.lettered", LETTERS)).isEqualTo(1);
        assertThat(gauge(registry, "outbox.pending", ORDERS)).isEqualTo(1L);
        assertThat(gauge(registry, "outbox.dead", LETTERS)).isEqualTo(1L);
        assertThat(gauge(registry, "outbox.oldest.pending.age", ORDERS).doubleValue()).isGreaterThan(0.0);
        // The timer is updated just after the counters, on the worker's thread.
        Timer batches = registry.getTimer(new MetricID("outbox.relay.batch", ORDERS));
        assertThat(batches).isNotNull();
        assertThat(batches.getCount()).isGreaterThanOrEqualTo(1);
        assertThat(batches.getElapsedTime()).isPositive();
      });
    }
  }

  private static long counter(MetricRegistry registry, String name, Tag tag) {
    Counter counter = registry.getCounter(new MetricID(name, tag));
    return counter == null ? 0 : counter.getCount();
  }

  private static Number gauge(MetricRegistry registry, String name, Tag tag) {
    Gauge<?> gauge = registry.getGauge(new MetricID(name, tag));
    return gauge == null ? -1 : gauge.getValue();
  }
}
