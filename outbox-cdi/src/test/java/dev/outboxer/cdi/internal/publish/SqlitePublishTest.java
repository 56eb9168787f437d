package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

class SqlitePublishTest extends PublishContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
