package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The outbox metrics in the application's Micrometer {@code MeterRegistry} bean (WildFly's {@code
 * micrometer} subsystem provides one), under the same names and {@code outbox} tag as in MicroProfile
 * Metrics. The only class of Outboxer that links against Micrometer: {@link OutboxMetrics} loads it
 * only once it found the API and no MicroProfile Metrics registry.
 */
final class MicrometerSink implements MetricsSink {

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Set<Meter> registered = ConcurrentHashMap.newKeySet();

  private MicrometerSink(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The sink on the application's {@code MeterRegistry} bean, or null when there is none. */
  static MetricsSink lookup(Instance<Object> instances) {
    Instance<MeterRegistry> registries = instances.select(MeterRegistry.class);
    return registries.isResolvable() ? new MicrometerSink(registries.get()) : null;
  }

  @Override
  public void count(String name, String outbox, long increment) {
    String description = OutboxMetrics.COUNTERS.get(name);
    if (description == null) {
      throw new IllegalArgumentException("not an outbox counter: " + name);
    }
    counters.computeIfAbsent(name + '\u0000' + outbox, key -> remember(Counter.builder(name)
        .description(description).tag("outbox", outbox).register(registry))).increment(increment);
  }

  @Override
  public void timeBatch(String outbox, Duration relayTime) {
    timers.computeIfAbsent(outbox, name -> remember(Timer.builder(OutboxMetrics.RELAY_BATCH)
        .description(OutboxMetrics.RELAY_BATCH_DESCRIPTION).tag("outbox", name).register(registry))).record(relayTime);
  }

  @Override
  public void registerGauges(String outbox, Supplier<OutboxCounts> counts) {
    gauge(OutboxMetrics.PENDING, OutboxMetrics.PENDING_DESCRIPTION, null, outbox, counts, latest -> latest.get().pending());
    gauge(OutboxMetrics.DEAD, OutboxMetrics.DEAD_DESCRIPTION, null, outbox, counts, latest -> latest.get().dead());
    gauge(OutboxMetrics.OLDEST_PENDING_AGE, OutboxMetrics.OLDEST_PENDING_AGE_DESCRIPTION, "seconds", outbox, counts,
        latest -> latest.get().oldestPendingAge().toMillis() / 1000.0);
  }

  /**
   * Removes what this application registered: a server's registry outlives the deployment, and its
   * gauges would keep reading beans that are gone.
   */
  @Override
  public void unregister() {
    List.copyOf(registered).forEach(meter -> {
      registry.remove(meter);
      registered.remove(meter);
    });
    counters.clear();
    timers.clear();
  }

  private void gauge(String name, String description, String unit, String outbox, Supplier<OutboxCounts> counts,
      ToDoubleFunction<Supplier<OutboxCounts>> value) {
    // A strong reference: Micrometer holds a gauge's object weakly, and nothing else may keep the supplier.
    remember(Gauge.builder(name, counts, value).description(description).baseUnit(unit).tag("outbox", outbox)
        .strongReference(true).register(registry));
  }

  private <M extends Meter> M remember(M meter) {
    registered.add(meter);
    return meter;
  }
}
