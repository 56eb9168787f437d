package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class PostgresSchemaFormsTest extends SchemaFormsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  String narrowLastErrorColumn() {
    return "ALTER TABLE outbox_message ALTER COLUMN last_error TYPE VARCHAR(1000)";
  }
}
