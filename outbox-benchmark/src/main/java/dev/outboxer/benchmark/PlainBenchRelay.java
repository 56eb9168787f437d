package dev.outboxer.benchmark;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

/**
 * The benchmark's no-op relay as a broker relay presents itself ({@code outbox.<name>.relay=bench-plain}):
 * it says it does not use the worker's transaction, as Outboxer's Kafka, SQS and RabbitMQ relays
 * do, so its batches run in plain database transactions. Otherwise the same as {@link BenchRelay}.
 */
@ApplicationScoped
@Named("bench-plain")
class PlainBenchRelay extends BenchRelay {

  @Override
  public boolean usesWorkerTransaction() {
    return false;
  }
}
