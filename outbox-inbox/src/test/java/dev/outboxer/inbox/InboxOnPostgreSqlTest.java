package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxOnPostgreSqlTest extends InboxContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
