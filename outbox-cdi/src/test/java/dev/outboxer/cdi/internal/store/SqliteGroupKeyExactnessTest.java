package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

/** SQLite compares text with its BINARY collation by default: exact bytes, as Java does. */
class SqliteGroupKeyExactnessTest extends GroupKeyExactnessContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
