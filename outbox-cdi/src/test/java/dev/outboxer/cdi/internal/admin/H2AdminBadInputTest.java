package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class H2AdminBadInputTest extends AdminBadInputContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
