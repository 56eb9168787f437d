package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class H2DelayedMessagesTest extends DelayedMessagesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
