package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class H2AdminQueriesTest extends AdminQueriesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
