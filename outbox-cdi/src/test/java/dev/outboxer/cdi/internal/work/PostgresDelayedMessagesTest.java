package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresDelayedMessagesTest extends DelayedMessagesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
