package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class H2SchemaFormsTest extends SchemaFormsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  String narrowLastErrorColumn() {
    return "ALTER TABLE outbox_message ALTER COLUMN last_error SET DATA TYPE VARCHAR(1000)";
  }
}
