package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class H2SchemaCheckTest extends SchemaCheckContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
