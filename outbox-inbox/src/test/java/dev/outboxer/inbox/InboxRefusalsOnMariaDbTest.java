package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRefusalsOnMariaDbTest extends InboxRefusalsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
