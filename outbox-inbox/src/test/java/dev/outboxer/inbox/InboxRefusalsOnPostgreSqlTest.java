package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRefusalsOnPostgreSqlTest extends InboxRefusalsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
