package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRetentionOnSqliteTest extends InboxRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
