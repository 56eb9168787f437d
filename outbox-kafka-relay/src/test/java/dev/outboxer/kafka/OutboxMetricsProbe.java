package dev.outboxer.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Reads Outboxer's counters from the MetricRegistry an application gets injected. (Injected: a
 * programmatic lookup of the registry NPEs inside SmallRye Metrics 5.1.) Call the methods, never
 * the field: the container hands out a client proxy, whose own fields stay empty.
 */
@ApplicationScoped
public class OutboxMetricsProbe {

  @Inject MetricRegistry registry;

  /**
   * @param name a counter name, e.g. {@code outbox.failed.attempts}
   * @param outbox the value of its {@code outbox} tag
   * @return the count, 0 while the counter does not exist yet
   */
  long count(String name, String outbox) {
    Counter counter = registry.getCounter(new MetricID(name, new Tag("outbox", outbox)));
    return counter == null ? 0 : counter.getCount();
  }
}
