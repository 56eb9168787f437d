package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbFencingTest extends FencingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
