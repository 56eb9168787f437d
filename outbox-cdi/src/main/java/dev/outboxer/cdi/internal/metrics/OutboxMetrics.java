package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The metrics of every outbox, tagged {@code outbox=<name>}: in MicroProfile Metrics' application
 * registry, or else in the application's Micrometer {@code MeterRegistry} (WildFly's micrometer
 * subsystem), under the same names.
 *
 * <p>Both are optional. This class links against neither API: at first use it looks for an API and
 * its registry bean and, only if both are there, loads {@link MicroProfileMetricsSink} or {@link
 * MicrometerSink}. Without them (for example Open Liberty without {@code mpMetrics}, WildFly without
 * the micrometer subsystem) every call does nothing, and it says so once at INFO. A metrics runtime
 * that breaks at run time is reported once at WARNING and then ignored: metrics never stop the outbox.
 */
@ApplicationScoped
public class OutboxMetrics {

  private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());
  static final String REGISTRY_CLASS = "org.eclipse.microprofile.metrics.MetricRegistry";
  static final String MICROMETER_REGISTRY_CLASS = "io.micrometer.core.instrument.MeterRegistry";

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
  public static final String RETENTION_REMOVED = "outbox.retention.removed";

  /** The counters and what each counts (MicroProfile Metrics publishes the descriptions; see MicrometerSink). */
  static final Map<String, String> COUNTERS = Map.of(
      PUBLISHED, "Messages published (counted when their transaction commits)",
      RELAYED, "Messages relayed: rows the relay confirmed and a committed batch deleted",
      FAILED_ATTEMPTS, "Failed delivery attempts",
      DEAD_LETTERED, "Messages that became dead: used up max-attempts, or failed permanently",
      BATCH_FAILURES, "Batches that failed as a whole (database unreachable, commit failed) and were rolled back",
      COMMIT_UNKNOWN, "Batch commits whose outcome is unknown (connection lost during the commit, heuristic outcome):"
          + " their messages may be delivered again",
      DEADLOCKS, "Batches the database rolled back to break a deadlock (retried at once)",
      RETENTION_REMOVED, "Dead messages removed by dead-retention, counted when their chunk commits");
  static final String RELAY_BATCH_DESCRIPTION = "Time the relay took per batch";
  static final String PENDING_DESCRIPTION = "Messages waiting to be relayed, retries included";
  static final String DEAD_DESCRIPTION = "Dead messages waiting for retryDead or discard";
  static final String OLDEST_PENDING_AGE_DESCRIPTION = "Age of the oldest pending message: the outbox's lag";

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

  /** Counts the dead messages a committed chunk of dead-retention removed. */
  public void retentionRemoved(String outbox, int removed) {
    count(RETENTION_REMOVED, outbox, removed);
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
   * The MicroProfile Metrics sink if its API is visible to {@code loader} and a {@code MetricRegistry}
   * bean exists; else the Micrometer sink if Micrometer is visible and a {@code MeterRegistry} bean
   * exists (WildFly's micrometer subsystem); else {@link MetricsSink#NONE}. MicroProfile Metrics
   * comes first: SmallRye's is built on Micrometer, and would otherwise be bypassed.
   */
  static MetricsSink find(Instance<Object> beans, ClassLoader loader) {
    boolean microProfile = visible(REGISTRY_CLASS, loader);
    if (microProfile && beans != null) {
      MetricsSink found = MicroProfileMetricsSink.lookup(beans);
      if (found != null) {
        return found;
      }
    }
    boolean micrometer = visible(MICROMETER_REGISTRY_CLASS, loader);
    if (micrometer && beans != null) {
      MetricsSink found = MicrometerSink.lookup(beans);
      if (found != null) {
        LOG.info("Outboxer: the outbox metrics go to the application's Micrometer MeterRegistry.");
        return found;
      }
    }
    LOG.info("Outboxer: " + (microProfile || micrometer ? "no MetricRegistry or MeterRegistry bean"
        : "neither MicroProfile Metrics (" + REGISTRY_CLASS + ") nor Micrometer (" + MICROMETER_REGISTRY_CLASS
        + ") is available") + ", so the outbox metrics are off. Enable one (Open Liberty: feature mpMetrics-5.1;"
        + " WildFly: the micrometer subsystem) to get them.");
    return MetricsSink.NONE;
  }

  private static boolean visible(String className, ClassLoader loader) {
    try {
      Class.forName(className, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError absent) {
      return false;
    }
  }
}
