package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRetentionOnH2Test extends InboxRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
