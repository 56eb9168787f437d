package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;

/** The fencing contract with a relay that does not use the worker's transaction: batches in plain database transactions. */
class PostgresPlainTransactionFencingTest extends FencingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  OutboxTestContainer.Builder builder() {
    return OutboxTestContainer.builder(database()).viaDataSource();
  }

  @Override
  boolean relayUsesWorkerTransaction() {
    return false;
  }
}
