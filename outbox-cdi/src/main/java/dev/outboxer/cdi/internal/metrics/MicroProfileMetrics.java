package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * Outboxer's metrics in the MicroProfile Metrics application registry, tagged
 * {@code outbox=<name>}. The only class of Outboxer that names MicroProfile Metrics types: loaded by
 * {@link OutboxMetrics} only when the API is on the application's class path (not on WildFly 29+,
 * which has no MicroProfile Metrics), so that Outboxer deploys without it. Not a CDI bean.
 * Without a MetricRegistry bean every call does nothing.
 */
final class MicroProfileMetrics implements OutboxMetrics.Backend {

  private static final Logger LOG = Logger.getLogger(MicroProfileMetrics.class.getName());

  static final String PUBLISHED = OutboxMetrics.PUBLISHED;
  static final String RELAYED = OutboxMetrics.RELAYED;
  static final String FAILED_ATTEMPTS = OutboxMetrics.FAILED_ATTEMPTS;
  static final String DEAD_LETTERED = OutboxMetrics.DEAD_LETTERED;
  static final String PENDING = OutboxMetrics.PENDING;
  static final String DEAD = OutboxMetrics.DEAD;
  static final String OLDEST_PENDING_AGE = OutboxMetrics.OLDEST_PENDING_AGE;
  static final String RELAY_BATCH = OutboxMetrics.RELAY_BATCH;
  static final String BATCH_FAILURES = OutboxMetrics.BATCH_FAILURES;
  static final String COMMIT_UNKNOWN = OutboxMetrics.COMMIT_UNKNOWN;
  static final String DEADLOCKS = OutboxMetrics.DEADLOCKS;

  private static final Metadata PUBLISHED_METADATA = metadata(PUBLISHED, "Messages published (counted when their transaction commits)", MetricUnits.NONE);
  private static final Metadata RELAYED_METADATA = metadata(RELAYED, "Messages relayed: rows the relay confirmed and a committed batch deleted", MetricUnits.NONE);
  private static final Metadata FAILED_METADATA = metadata(FAILED_ATTEMPTS, "Failed delivery attempts", MetricUnits.NONE);
  private static final Metadata DEAD_LETTERED_METADATA = metadata(DEAD_LETTERED, "Messages that used up max-attempts and became dead", MetricUnits.NONE);
  private static final Metadata BATCH_FAILURES_METADATA = metadata(BATCH_FAILURES, "Batches that failed as a whole (database unreachable, commit failed) and were rolled back", MetricUnits.NONE);
  private static final Metadata COMMIT_UNKNOWN_METADATA = metadata(COMMIT_UNKNOWN, "Batch commits whose outcome is unknown (connection lost during the commit, heuristic outcome): their messages may be delivered again", MetricUnits.NONE);
  private static final Metadata DEADLOCKS_METADATA = metadata(DEADLOCKS, "Batches the database rolled back to break a deadlock (retried at once)", MetricUnits.NONE);
  private static final Metadata BATCH_METADATA = metadata(RELAY_BATCH, "Time the relay took per batch", MetricUnits.NANOSECONDS);

  private final Instance<MetricRegistry> registries;
  private volatile MetricRegistry registry;
  private volatile boolean resolved;
  private volatile boolean metricsBroken;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final java.util.Set<MetricID> registered = ConcurrentHashMap.newKeySet();

  /** @param beans the application's beans, in which the MetricRegistry is looked up on first use */
  MicroProfileMetrics(Instance<Object> beans) {
    this.registries = beans.select(MetricRegistry.class);
  }

  @Override
  public void published(String outbox, int count) {
    safely(() -> counter(PUBLISHED_METADATA, outbox, count));
  }

  @Override
  public void batchFailed(String outbox) {
    safely(() -> counter(BATCH_FAILURES_METADATA, outbox, 1));
  }

  @Override
  public void commitUnknown(String outbox) {
    safely(() -> counter(COMMIT_UNKNOWN_METADATA, outbox, 1));
  }

  @Override
  public void deadlock(String outbox) {
    safely(() -> counter(DEADLOCKS_METADATA, outbox, 1));
  }

  /** Counts what a committed batch did: {@code relayed} is the number of rows its commit deleted. */
  @Override
  public void batch(String outbox, int relayedRows, int failed, int died, Duration relayTime, boolean relayed) {
    safely(() -> {
      counter(RELAYED_METADATA, outbox, relayedRows);
      counter(FAILED_METADATA, outbox, failed);
      counter(DEAD_LETTERED_METADATA, outbox, died);
      MetricRegistry metrics = registry();
      if (relayed && metrics != null) {
        timers.computeIfAbsent(outbox, name -> {
          registered.add(new MetricID(RELAY_BATCH, tag(name)));
          return metrics.timer(BATCH_METADATA, tag(name));
        }).update(relayTime);
      }
    });
  }

  /**
   * Metrics must never stop the outbox: a broken metrics runtime (seen: Micrometer without its
   * HdrHistogram dependency) is reported once and then ignored.
   */
  private void safely(Runnable update) {
    try {
      update.run();
    } catch (RuntimeException | LinkageError broken) {
      if (!metricsBroken) {
        metricsBroken = true;
        LOG.log(Level.WARNING, "Outboxer could not update its metrics; it goes on without them", broken);
      }
    }
  }

  /** The gauges read the given supplier, which must be cheap: it should return cached counts. */
  @Override
  public void registerGauges(String outbox, Supplier<OutboxCounts> counts) {
    MetricRegistry metrics = registry();
    if (metrics == null) {
      return;
    }
    Tag tag = tag(outbox);
    metrics.gauge(metadata(PENDING, "Messages waiting to be relayed, retries included", MetricUnits.NONE), counts,
        latest -> latest.get().pending(), tag);
    metrics.gauge(metadata(DEAD, "Dead messages waiting for retryDead or discard", MetricUnits.NONE), counts,
        latest -> latest.get().dead(), tag);
    metrics.gauge(metadata(OLDEST_PENDING_AGE, "Age of the oldest pending message: the outbox's lag", MetricUnits.SECONDS),
        counts, latest -> latest.get().oldestPendingAge().toMillis() / 1000.0, tag);
    for (String name : new String[] {PENDING, DEAD, OLDEST_PENDING_AGE}) {
      registered.add(new MetricID(name, tag));
    }
  }

  /**
   * Removes this application's metrics when it stops: the gauges read beans that are going away,
   * and a registry that outlives the application (one per JVM in Java SE) would otherwise keep
   * them, and refuse the next start's gauges of the same name.
   */
  @Override
  public void unregister() {
    MetricRegistry metrics = registry();
    if (metrics != null) {
      registered.forEach(metrics::remove);
    }
    registered.clear();
    counters.clear();
    timers.clear();
  }

  private void counter(Metadata metadata, String outbox, int increment) {
    MetricRegistry metrics = registry();
    if (metrics == null || increment == 0) {
      return;
    }
    counters.computeIfAbsent(metadata.getName() + '\u0000' + outbox, key -> {
      registered.add(new MetricID(metadata.getName(), tag(outbox)));
      return metrics.counter(metadata, tag(outbox));
    }).inc(increment);
  }

  private MetricRegistry registry() {
    if (!resolved) {
      registry = registries.isResolvable() ? registries.get() : null;
      resolved = true;
    }
    return registry;
  }

  private static Tag tag(String outbox) {
    return new Tag("outbox", outbox);
  }

  private static Metadata metadata(String name, String description, String unit) {
    return Metadata.builder().withName(name).withDescription(description).withUnit(unit).build();
  }
}
