package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class MariaDbSchemaFormsTest extends SchemaFormsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String narrowLastErrorColumn() {
    return "ALTER TABLE outbox_message MODIFY last_error VARCHAR(1000)";
  }
}
