package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

class MariaDbPublishTest extends PublishContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
