package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

class H2AdminInFlightTest extends AdminInFlightContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
