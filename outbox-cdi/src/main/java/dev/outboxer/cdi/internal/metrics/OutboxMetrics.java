package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * MicroProfile Metrics of every outbox, tagged {@code outbox=<name>}, in the application registry.
 *
 * <p>MicroProfile Metrics is optional. This class does not link against its API: at first use it
 * looks for the API and a {@code MetricRegistry} bean and, only if both are there, loads {@link
 * MicroProfileMetricsSink}. Without them (for example Open Liberty without {@code mpMetrics}) every
 * call does nothing, and it says so once at INFO. A metrics runtime that breaks at run time is
 * reported once at WARNING and then ignored: metrics never stop the outbox.
 */
@ApplicationScoped
public class OutboxMetrics {

  private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());
  static final String REGISTRY_CLASS = "org.eclipse.microprofile.metrics.MetricRegistry";

  public static final String PUBLISHED = "outbox.published";
  public static final String RELAYED = "outbox.relayed";
  public static final String FAILED_ATTEMPTS = "outbox.failed.attempts";
  public static final String DEAD_LETTERED = "outbox.dead.lettered";
  public static final String PENDING = "outbox.pending";
  public static final String DEAD = "outbox.dead";
  public static final String OLDEST_PENDING_AGE = "outbox.oldest.pending.age";
  public static final String RELAY_BATCH = "outbox.relay.batch";
  public static final String BATCH_FAILURES = "outbox.batch.failures";
  public static final String COMMIT_UNKNOWN = "outbox.commit.unknown";
  public static final String DEADLOCKS = "outbox.deadlocks";

  @Inject Instance<Object> beans;

  private volatile MetricsSink sink;
  private volatile boolean metricsBroken;

  public void published(String outbox, int count) {
    count(PUBLISHED, outbox, count);
  }

  public void batchFailed(String outbox) {
    count(BATCH_FAILURES, outbox, 1);
  }

  public void commitUnknown(String outbox) {
    count(COMMIT_UNKNOWN, outbox, 1);
  }

  public void deadlock(String outbox) {
    count(DEADLOCKS, outbox, 1);
  }

  /** Counts what a committed batch did: {@code relayed} is the number of rows its commit deleted. */
  public void batch(String outbox, int relayedRows, int failed, int died, Duration relayTime, boolean relayed) {
    count(RELAYED, outbox, relayedRows);
    count(FAILED_ATTEMPTS, outbox, failed);
    count(DEAD_LETTERED, outbox, died);
    if (relayed) {
      safely(() -> sink().timeBatch(outbox, relayTime));
    }
  }

  /** The gauges read the given supplier, which must be cheap: it should return cached counts. */
  public void registerGauges(String outbox, Supplier<OutboxCounts> counts) {
    safely(() -> sink().registerGauges(outbox, counts));
  }

  /**
   * Removes this application's metrics when it stops: the gauges read beans that are going away,
   * and a registry that outlives the application (one per JVM in Java SE) would otherwise keep
   * them, and refuse the next start's gauges of the same name.
   */
  public void unregister() {
    safely(() -> sink().unregister());
  }

  private void count(String name, String outbox, long increment) {
    if (increment != 0) {
      safely(() -> sink().count(name, outbox, increment));
    }
  }

  /**
   * Metrics must never stop the outbox: a broken metrics runtime (seen: Micrometer without its
   * HdrHistogram dependency) is reported once and then ignored.
   */
  private void safely(Runnable update) {
    if (metricsBroken) {
      return;
    }
    try {
      update.run();
    } catch (RuntimeException | LinkageError broken) {
      metricsBroken = true;
      LOG.log(Level.WARNING, "Outboxer could not update its metrics; it goes on without them", broken);
    }
  }

  private MetricsSink sink() {
    MetricsSink found = sink;
    if (found == null) {
      found = find(beans, OutboxMetrics.class.getClassLoader());
      sink = found;
    }
    return found;
  }

  /**
   * The MicroProfile Metrics sink if the API is visible to {@code loader} and a registry bean exists,
   * else {@link MetricsSink#NONE}.
   */
  static MetricsSink find(Instance<Object> beans, ClassLoader loader) {
    try {
      Class.forName(REGISTRY_CLASS, false, loader);
    } catch (ClassNotFoundException | LinkageError absent) {
      LOG.info("Outboxer: MicroProfile Metrics is not available (no " + REGISTRY_CLASS + "), so the outbox"
          + " metrics are off. Enable it (Open Liberty: feature mpMetrics-5.1) to get them.");
      return MetricsSink.NONE;
    }
    MetricsSink found = beans == null ? null : MicroProfileMetricsSink.lookup(beans);
    if (found == null) {
      LOG.info("Outboxer: no MetricRegistry bean, so the outbox metrics are off.");
      return MetricsSink.NONE;
    }
    return found;
  }
}
