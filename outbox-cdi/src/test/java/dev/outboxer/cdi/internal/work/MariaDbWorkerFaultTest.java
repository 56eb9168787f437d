package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbWorkerFaultTest extends WorkerFaultContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String connectionIdSql() {
    return "SELECT CONNECTION_ID()";
  }

  @Override
  String killSql(long connectionId) {
    return "KILL CONNECTION " + connectionId;
  }

  @Override
  String connectionCountSql() {
    return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?";
  }
}
