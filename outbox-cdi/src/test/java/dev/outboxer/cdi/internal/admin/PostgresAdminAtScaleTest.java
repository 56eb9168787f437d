package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class PostgresAdminAtScaleTest extends AdminAtScaleContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
