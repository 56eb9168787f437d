package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxOnH2Test extends InboxContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
