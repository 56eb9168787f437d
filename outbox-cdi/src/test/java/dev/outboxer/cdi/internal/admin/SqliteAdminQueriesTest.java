package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class SqliteAdminQueriesTest extends AdminQueriesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
