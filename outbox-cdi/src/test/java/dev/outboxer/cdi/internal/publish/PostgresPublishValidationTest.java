package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

class PostgresPublishValidationTest extends PublishValidationContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
