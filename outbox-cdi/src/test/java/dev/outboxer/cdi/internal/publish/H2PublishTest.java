package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

class H2PublishTest extends PublishContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
