package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRefusalsOnH2Test extends InboxRefusalsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
