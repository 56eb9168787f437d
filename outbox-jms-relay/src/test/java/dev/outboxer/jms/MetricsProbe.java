package dev.outboxer.jms;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/** Reads Outboxer's metrics from the MetricRegistry the application gets injected. */
@ApplicationScoped
public class MetricsProbe {

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

  /**
   * @param name a timer name, e.g. {@code outbox.relay.batch}
   * @param outbox the value of its {@code outbox} tag
   * @return how many times it was updated, 0 while it does not exist yet
   */
  long timed(String name, String outbox) {
    Timer timer = registry.getTimer(new MetricID(name, new Tag("outbox", outbox)));
    return timer == null ? 0 : timer.getCount();
  }
}
