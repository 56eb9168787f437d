package dev.outboxer.cdi.internal.work;

/** The worker-fault contract with a relay that does not use the worker's transaction: batches in plain database transactions. */
class MariaDbPlainTransactionWorkerFaultTest extends MariaDbWorkerFaultTest {
  @Override
  boolean plainWorkerTransactions() {
    return true;
  }
}
