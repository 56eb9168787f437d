package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class SqliteSchemaFormsTest extends SchemaFormsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }

  /** SQLite cannot change a column's type: the column is dropped and added again, narrower (SQLite 3.35+). */
  @Override
  String narrowLastErrorColumn() {
    return "ALTER TABLE outbox_message DROP COLUMN last_error;\n"
        + "ALTER TABLE outbox_message ADD COLUMN last_error VARCHAR(1000);";
  }
}
