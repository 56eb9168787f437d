package dev.outboxer.testing;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Gauge;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * Reads Outboxer's metrics from the MetricRegistry an application gets injected. (Injected: a
 * programmatic lookup of the registry NPEs inside SmallRye Metrics 5.1.) Call the methods, never
 * the field: the container hands out a client proxy, whose own fields stay empty. Add it to a
 * container with {@code beans(OutboxMetricsProbe.class)}.
 */
@ApplicationScoped
public class OutboxMetricsProbe {

  @Inject MetricRegistry registry;

  /** @return the counter's count, 0 while it does not exist yet */
  public long count(String name, String outbox) {
    Counter counter = registry.getCounter(id(name, outbox));
    return counter == null ? 0 : counter.getCount();
  }

  /** @return how many times the timer was updated, 0 while it does not exist yet */
  public long timed(String name, String outbox) {
    Timer timer = registry.getTimer(id(name, outbox));
    return timer == null ? 0 : timer.getCount();
  }

  /** @return the timer, or null while it does not exist yet */
  public Timer timer(String name, String outbox) {
    return registry.getTimer(id(name, outbox));
  }

  /** @return the gauge's value, or -1 while it does not exist yet */
  public Number gauge(String name, String outbox) {
    Gauge<?> gauge = registry.getGauge(id(name, outbox));
    return gauge == null ? -1 : gauge.getValue();
  }

  private static MetricID id(String name, String outbox) {
    return new MetricID(name, new Tag("outbox", outbox));
  }
}
