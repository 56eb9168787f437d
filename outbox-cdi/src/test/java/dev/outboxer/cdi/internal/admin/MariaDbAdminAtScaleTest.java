package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class MariaDbAdminAtScaleTest extends AdminAtScaleContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
