package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class PostgresAdminBadInputTest extends AdminBadInputContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
