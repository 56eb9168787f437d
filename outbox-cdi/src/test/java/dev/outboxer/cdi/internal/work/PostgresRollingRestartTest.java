package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresRollingRestartTest extends RollingRestartContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
