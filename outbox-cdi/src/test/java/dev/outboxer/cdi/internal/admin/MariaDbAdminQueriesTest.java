package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class MariaDbAdminQueriesTest extends AdminQueriesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
