package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class PostgresAdminQueriesTest extends AdminQueriesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
