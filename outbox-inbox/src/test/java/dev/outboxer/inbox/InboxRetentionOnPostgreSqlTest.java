package dev.outboxer.inbox;

import dev.outboxer.testing.TestDatabase;

class InboxRetentionOnPostgreSqlTest extends InboxRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
