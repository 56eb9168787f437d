package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRetentionOnMariaDbTest extends InboxRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
