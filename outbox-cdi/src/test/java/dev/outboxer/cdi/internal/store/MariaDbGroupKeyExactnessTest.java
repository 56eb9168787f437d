package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class MariaDbGroupKeyExactnessTest extends GroupKeyExactnessContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
