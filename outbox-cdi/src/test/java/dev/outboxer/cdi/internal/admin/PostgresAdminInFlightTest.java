package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class PostgresAdminInFlightTest extends AdminInFlightContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
