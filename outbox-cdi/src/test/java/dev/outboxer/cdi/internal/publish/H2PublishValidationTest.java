package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

class H2PublishValidationTest extends PublishValidationContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
