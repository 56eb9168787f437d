package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class MariaDbAdminInFlightTest extends AdminInFlightContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
