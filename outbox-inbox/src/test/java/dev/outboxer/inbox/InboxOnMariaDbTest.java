package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxOnMariaDbTest extends InboxContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
