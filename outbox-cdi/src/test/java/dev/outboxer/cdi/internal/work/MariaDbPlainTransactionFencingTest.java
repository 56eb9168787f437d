package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

/** The fencing contract with a relay that does not use the worker's transaction: batches in plain database transactions. */
class MariaDbPlainTransactionFencingTest extends FencingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  boolean plainWorkerTransactions() {
    return true;
  }
}
