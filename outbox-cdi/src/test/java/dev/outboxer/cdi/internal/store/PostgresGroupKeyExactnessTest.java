package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class PostgresGroupKeyExactnessTest extends GroupKeyExactnessContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
