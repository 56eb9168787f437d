package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbPermanentFailureTest extends PermanentFailureContractTest {
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
}
