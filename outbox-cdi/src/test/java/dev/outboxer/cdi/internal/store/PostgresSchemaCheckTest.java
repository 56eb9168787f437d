package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class PostgresSchemaCheckTest extends SchemaCheckContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
