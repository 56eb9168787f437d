package dev.outboxer.cdi.internal.metrics;

import dev.outboxer.OutboxCounts;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Where {@link OutboxMetrics} sends its figures. Free of any metrics API, so that the core loads and
 * runs where no metrics library is present ({@link #NONE}).
 */
interface MetricsSink {

  /** Metrics switched off: every call does nothing. */
  MetricsSink NONE = new MetricsSink() {
    @Override public void count(String name, String outbox, long increment) {}
    @Override public void timeBatch(String outbox, Duration relayTime) {}
    @Override public void registerGauges(String outbox, Supplier<OutboxCounts> counts,
        Supplier<Duration> oldestTransactionAge) {}
    @Override public void unregister() {}
  };

  void count(String name, String outbox, long increment);

  void timeBatch(String outbox, Duration relayTime);

  void registerGauges(String outbox, Supplier<OutboxCounts> counts, Supplier<Duration> oldestTransactionAge);

  void unregister();
}
