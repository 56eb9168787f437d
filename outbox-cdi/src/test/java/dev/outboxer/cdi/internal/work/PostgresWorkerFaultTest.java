package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresWorkerFaultTest extends WorkerFaultContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  String connectionIdSql() {
    return "SELECT pg_backend_pid()";
  }

  @Override
  String killSql(long connectionId) {
    return "SELECT pg_terminate_backend(" + connectionId + ")";
  }

  @Override
  String connectionCountSql() {
    return "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ?";
  }
}
