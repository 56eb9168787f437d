package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.OutboxTestContainer;

/** The worker-fault contract with a relay that does not use the worker's transaction: batches in plain database transactions. */
class PostgresPlainTransactionWorkerFaultTest extends PostgresWorkerFaultTest {
  @Override
  OutboxTestContainer.Builder builder() {
    return OutboxTestContainer.builder(database()).viaDataSource();
  }

  @Override
  boolean relayUsesWorkerTransaction() {
    return false;
  }
}
