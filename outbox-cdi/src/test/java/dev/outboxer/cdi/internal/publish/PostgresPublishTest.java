package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

class PostgresPublishTest extends PublishContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
