package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbRollingRestartTest extends RollingRestartContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
