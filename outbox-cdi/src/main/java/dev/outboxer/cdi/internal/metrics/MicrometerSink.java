package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The outbox metrics in the application's Micrometer {@code MeterRegistry} bean (WildFly's {@code
 * micrometer} subsystem provides one), under the same names and {@code outbox} tag as in MicroProfile
 * Metrics. The only class of Outboxer that links against Micrometer: {@link OutboxMetrics} loads it
 * only once it found the API and no MicroProfile Metrics registry.
 *
 * <p>Meters are made with the registry's own {@code counter}/{@code timer}/{@code gauge} methods, not
 * with builders: WildFly's per-deployment registry overrides only those, to tag the meters with the
 * deployment and register them in the server's registry, which exports them; a builder would register
 * them in the deployment's registry alone, unexported and invisible to its own {@code find}. So the
 * meters carry no description or base unit ({@code outbox.oldest.pending.age} is in seconds).
 */
final class MicrometerSink implements MetricsSink {

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Set<Meter> registered = ConcurrentHashMap.newKeySet();
  private final Set<Supplier<?>> gaugeSources = ConcurrentHashMap.newKeySet();

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
    if (!OutboxMetrics.COUNTERS.containsKey(name)) {
      throw new IllegalArgumentException("not an outbox counter: " + name);
    }
    counters.computeIfAbsent(name + '\u0000' + outbox, key -> remember(registry.counter(name, tags(outbox))))
        .increment(increment);
  }

  @Override
  public void timeBatch(String outbox, Duration relayTime) {
    timers.computeIfAbsent(outbox, name -> remember(registry.timer(OutboxMetrics.RELAY_BATCH, tags(name))))
        .record(relayTime);
  }

  @Override
  public void registerGauges(String outbox, Supplier<OutboxCounts> counts, Supplier<Duration> oldestTransactionAge) {
    // Micrometer holds a gauge's object weakly, and nothing else may keep the suppliers.
    gaugeSources.add(counts);
    gaugeSources.add(oldestTransactionAge);
    registry.gauge(OutboxMetrics.PENDING, tags(outbox), counts, latest -> latest.get().pending());
    registry.gauge(OutboxMetrics.DEAD, tags(outbox), counts, latest -> latest.get().dead());
    registry.gauge(OutboxMetrics.OLDEST_PENDING_AGE, tags(outbox), counts,
        latest -> latest.get().oldestPendingAge().toMillis() / 1000.0);
    registry.gauge(OutboxMetrics.OLDEST_TRANSACTION_AGE, tags(outbox), oldestTransactionAge,
        age -> age.get().toMillis() / 1000.0);
    for (String name : new String[] {OutboxMetrics.PENDING, OutboxMetrics.DEAD, OutboxMetrics.OLDEST_PENDING_AGE,
        OutboxMetrics.OLDEST_TRANSACTION_AGE}) {
      registry.find(name).tags(tags(outbox)).meters().forEach(this::remember);
    }
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
    gaugeSources.clear();
  }

  private static Tags tags(String outbox) {
    return Tags.of("outbox", outbox);
  }

  private <M extends Meter> M remember(M meter) {
    registered.add(meter);
    return meter;
  }
}
