package dev.outboxer.it;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Reads Outboxer's counters from the MicroProfile Metrics application registry (Open Liberty
 * only: WildFly has no MicroProfile Metrics, so this bean is never part of a WildFly deployment).
 */
@ApplicationScoped
public class AppMetrics {

  @Inject
  MetricRegistry registry;

  /** A counter's value, 0 if it was never incremented (Outboxer registers counters on first use). */
  public long count(String name, String outbox) {
    Counter counter = registry.getCounter(new MetricID(name, new Tag("outbox", outbox)));
    return counter == null ? 0 : counter.getCount();
  }
}
