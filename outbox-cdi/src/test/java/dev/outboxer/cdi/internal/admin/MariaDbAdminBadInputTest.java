package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class MariaDbAdminBadInputTest extends AdminBadInputContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
