package dev.outboxer.cdi.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where the application has a Micrometer {@code MeterRegistry} bean and no MicroProfile Metrics (as
 * on WildFly with its micrometer subsystem), the outbox metrics go to that registry, under the names
 * and tag of the MicroProfile Metrics ones; and they leave it when the application stops.
 */
class MicrometerMetricsTest {

  /** The registry the application's server would provide. */
  static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();

  @Test
  void counters_gauges_and_the_batch_timer_reach_the_micrometer_registry_and_leave_it_at_shutdown() throws Exception {
    REGISTRY.clear();
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.metrics.refresh-interval", "100ms")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.poll-interval", "50ms")
        .config("outbox.letters.relay", "recording")
        .config("outbox.letters.max-attempts", "1")
        .beans(RecordingRelay.class, RegistryProducer.class)
        .extensions(new WithoutMicroProfileMetrics())
        .start()) {
      Outbox outbox = container.select(Outbox.class);
      RecordingRelay relay = container.select(RecordingRelay.class);
      Set<Long> failing = ConcurrentHashMap.newKeySet();
      relay.failWhen(record -> failing.contains(record.id()));

      container.inTransaction(() -> {
        outbox.publish("orders", new Keyed("a", 1));
        outbox.publish("orders", new Keyed("a", 2));
        failing.add(outbox.publish("orders", new Keyed("stuck", 1)));
        failing.add(outbox.publish("letters", new Keyed("dies", 1)));
      });

      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(count("outbox.published", "orders")).isEqualTo(3);
        assertThat(count("outbox.published", "letters")).isEqualTo(1);
        assertThat(count("outbox.relayed", "orders")).isEqualTo(2);
        assertThat(count("outbox.failed.attempts", "orders")).isGreaterThanOrEqualTo(1);
        assertThat(count("outbox.dead.lettered", "letters")).isEqualTo(1);
        assertThat(gauge("outbox.pending", "orders")).isEqualTo(1);
        assertThat(gauge("outbox.dead", "letters")).isEqualTo(1);
        assertThat(gauge("outbox.oldest.pending.age", "orders")).isPositive();
        assertThat(gauge("outbox.oldest.transaction.age", "orders")).as("registered (NaN while missing)").isNotNaN();
        // The timer is updated just after the counters, on the worker's thread.
        Timer batches = REGISTRY.find("outbox.relay.batch").tag("outbox", "orders").timer();
        assertThat(batches).isNotNull();
        assertThat(batches.count()).isGreaterThanOrEqualTo(1);
        assertThat(batches.totalTime(TimeUnit.NANOSECONDS)).isPositive();
      });
    }
    assertThat(REGISTRY.getMeters()).as("meters left after the application stopped")
        .noneMatch(meter -> meter.getId().getName().startsWith("outbox."));
  }

  private static double count(String name, String outbox) {
    Counter counter = REGISTRY.find(name).tag("outbox", outbox).counter();
    return counter == null ? 0 : counter.count();
  }

  private static double gauge(String name, String outbox) {
    var gauge = REGISTRY.find(name).tag("outbox", outbox).gauge();
    return gauge == null ? Double.NaN : gauge.value();
  }

  /** Produces the registry as WildFly's micrometer subsystem does: a singleton {@code MeterRegistry} bean. */
  public static class RegistryProducer {
    @Produces
    @Singleton
    MeterRegistry registry() {
      return REGISTRY;
    }
  }

  /** Vetoes SmallRye Metrics' beans, so that the application has no MicroProfile Metrics registry. */
  public static class WithoutMicroProfileMetrics implements Extension {
    void veto(@Observes ProcessAnnotatedType<?> type) {
      if (type.getAnnotatedType().getJavaClass().getName().startsWith("io.smallrye.metrics.")) {
        type.veto();
      }
    }
  }
}
