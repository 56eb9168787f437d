package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class SqliteSchemaCheckTest extends SchemaCheckContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }

  /** SQLite has no sequences: each is a row of outbox_sequence. */
  @Override
  String dropFencingSequence() {
    return "DELETE FROM outbox_sequence WHERE name = 'outbox_fencing_seq'";
  }
}
