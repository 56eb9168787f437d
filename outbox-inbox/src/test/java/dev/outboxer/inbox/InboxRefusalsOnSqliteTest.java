package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRefusalsOnSqliteTest extends InboxRefusalsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
