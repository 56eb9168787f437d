package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * The outbox metrics in MicroProfile Metrics' application registry. The only class of Outboxer that
 * links against the MicroProfile Metrics API: {@link OutboxMetrics} loads it only once it found the
 * API, so an application server without the feature runs Outboxer without metrics instead of failing
 * the deployment with an unsatisfied dependency.
 */
final class MicroProfileMetricsSink implements MetricsSink {

  private static final Map<String, Metadata> COUNTERS = OutboxMetrics.COUNTERS.entrySet().stream().collect(
      Collectors.toUnmodifiableMap(Map.Entry::getKey, counter -> metadata(counter.getKey(), counter.getValue(), MetricUnits.NONE)));
  private static final Metadata BATCH_METADATA = metadata(OutboxMetrics.RELAY_BATCH, OutboxMetrics.RELAY_BATCH_DESCRIPTION,
      MetricUnits.NANOSECONDS);

  private final MetricRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Set<MetricID> registered = ConcurrentHashMap.newKeySet();

  private MicroProfileMetricsSink(MetricRegistry registry) {
    this.registry = registry;
  }

  /**
   * The sink on the application's registry bean, or null when there is none. Looked up through an
   * injected {@code Instance}, which gives the registry's producer the injection point it reads
   * (SmallRye's fails on a bare BeanManager reference).
   */
  static MetricsSink lookup(Instance<Object> instances) {
    Instance<MetricRegistry> registries = instances.select(MetricRegistry.class);
    return registries.isResolvable() ? new MicroProfileMetricsSink(registries.get()) : null;
  }

  @Override
  public void count(String name, String outbox, long increment) {
    Metadata metadata = COUNTERS.get(name);
    if (metadata == null) {
      throw new IllegalArgumentException("not an outbox counter: " + name);
    }
    counters.computeIfAbsent(name + '\u0000' + outbox, key -> {
      registered.add(new MetricID(name, tag(outbox)));
      return registry.counter(metadata, tag(outbox));
    }).inc(increment);
  }

  @Override
  public void timeBatch(String outbox, Duration relayTime) {
    timers.computeIfAbsent(outbox, name -> {
      registered.add(new MetricID(OutboxMetrics.RELAY_BATCH, tag(name)));
      return registry.timer(BATCH_METADATA, tag(name));
    }).update(relayTime);
  }

  @Override
  public void registerGauges(String outbox, Supplier<OutboxCounts> counts, Supplier<Duration> oldestTransactionAge) {
    Tag tag = tag(outbox);
    registry.gauge(metadata(OutboxMetrics.PENDING, OutboxMetrics.PENDING_DESCRIPTION, MetricUnits.NONE),
        counts, latest -> latest.get().pending(), tag);
    registry.gauge(metadata(OutboxMetrics.DEAD, OutboxMetrics.DEAD_DESCRIPTION, MetricUnits.NONE),
        counts, latest -> latest.get().dead(), tag);
    registry.gauge(metadata(OutboxMetrics.OLDEST_PENDING_AGE, OutboxMetrics.OLDEST_PENDING_AGE_DESCRIPTION,
        MetricUnits.SECONDS), counts, latest -> latest.get().oldestPendingAge().toMillis() / 1000.0, tag);
    registry.gauge(metadata(OutboxMetrics.OLDEST_TRANSACTION_AGE, OutboxMetrics.OLDEST_TRANSACTION_AGE_DESCRIPTION,
        MetricUnits.SECONDS), oldestTransactionAge, age -> age.get().toMillis() / 1000.0, tag);
    for (String name : new String[] {OutboxMetrics.PENDING, OutboxMetrics.DEAD, OutboxMetrics.OLDEST_PENDING_AGE,
        OutboxMetrics.OLDEST_TRANSACTION_AGE}) {
      registered.add(new MetricID(name, tag));
    }
  }

  @Override
  public void unregister() {
    registered.forEach(registry::remove);
    registered.clear();
    counters.clear();
    timers.clear();
  }

  private static Tag tag(String outbox) {
    return new Tag("outbox", outbox);
  }

  private static Metadata metadata(String name, String description, String unit) {
    return Metadata.builder().withName(name).withDescription(description).withUnit(unit).build();
  }
}
