package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresFencingTest extends FencingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
