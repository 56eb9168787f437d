package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class SqliteDelayedMessagesTest extends DelayedMessagesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
