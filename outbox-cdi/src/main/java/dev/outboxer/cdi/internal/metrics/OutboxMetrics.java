package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Outboxer's metrics of every outbox (names below, tagged {@code outbox=<name>}): in MicroProfile
 * Metrics' application registry where the runtime has MicroProfile Metrics (Open Liberty's
 * {@code mpMetrics}, SmallRye Metrics in Java SE). Without it every call does nothing, and Outboxer
 * still deploys: neither this bean's fields nor its signatures name a MicroProfile Metrics type
 * (WildFly 29 and later ship none, and Weld drops a bean whose class refers to a missing type, so
 * every bean that injects it would fail the deployment). The MicroProfile side is
 * {@link MicroProfileMetrics}, loaded only when the API is visible to this class.
 */
@ApplicationScoped
public class OutboxMetrics {

  private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());

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

  /** Where the numbers go. */
  interface Backend {
    void published(String outbox, int count);

    void batchFailed(String outbox);

    void commitUnknown(String outbox);

    void deadlock(String outbox);

    void batch(String outbox, int relayedRows, int failed, int died, Duration relayTime, boolean relayed);

    void registerGauges(String outbox, Supplier<OutboxCounts> counts);

    void unregister();
  }

  /** No metrics runtime: nothing is recorded. */
  private static final Backend NONE = new Backend() {
    @Override public void published(String outbox, int count) {}
    @Override public void batchFailed(String outbox) {}
    @Override public void commitUnknown(String outbox) {}
    @Override public void deadlock(String outbox) {}
    @Override public void batch(String outbox, int relayedRows, int failed, int died, Duration relayTime, boolean relayed) {}
    @Override public void registerGauges(String outbox, Supplier<OutboxCounts> counts) {}
    @Override public void unregister() {}
  };

  @Inject Instance<Object> beans;

  private volatile Backend backend;

  public void published(String outbox, int count) {
    backend().published(outbox, count);
  }

  public void batchFailed(String outbox) {
    backend().batchFailed(outbox);
  }

  public void commitUnknown(String outbox) {
    backend().commitUnknown(outbox);
  }

  public void deadlock(String outbox) {
    backend().deadlock(outbox);
  }

  /** Counts what a committed batch did: {@code relayed} is the number of rows its commit deleted. */
  public void batch(String outbox, int relayedRows, int failed, int died, Duration relayTime, boolean relayed) {
    backend().batch(outbox, relayedRows, failed, died, relayTime, relayed);
  }

  /** The gauges read the given supplier, which must be cheap: it should return cached counts. */
  public void registerGauges(String outbox, Supplier<OutboxCounts> counts) {
    backend().registerGauges(outbox, counts);
  }

  /** Removes this application's metrics when it stops (see {@link MicroProfileMetrics#unregister()}). */
  public void unregister() {
    backend().unregister();
  }

  private Backend backend() {
    Backend current = backend;
    if (current == null) {
      current = microProfileMetricsPresent() ? new MicroProfileMetrics(beans) : NONE;
      backend = current;
    }
    return current;
  }

  private static boolean microProfileMetricsPresent() {
    try {
      Class.forName("org.eclipse.microprofile.metrics.MetricRegistry", false, OutboxMetrics.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError absent) {
      LOG.fine("No MicroProfile Metrics API visible to Outboxer: it records no metrics");
      return false;
    }
  }
}
