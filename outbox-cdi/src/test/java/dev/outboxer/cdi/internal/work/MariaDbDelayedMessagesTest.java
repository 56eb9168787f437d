package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbDelayedMessagesTest extends DelayedMessagesContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
