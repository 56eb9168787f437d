package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresPlainWorkerTransactionTest extends PlainWorkerTransactionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  String claimHolderSql() {
    return "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        + " AND state = 'idle in transaction' AND backend_xid IS NOT NULL";
  }

  @Override
  String killSql(long sessionId) {
    return "SELECT pg_terminate_backend(" + sessionId + ")";
  }
}
