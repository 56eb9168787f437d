package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;

/** On SQLite the held batch holds the whole database: discard waits for it as it waits for a locked partition. */
class SqliteAdminInFlightTest extends AdminInFlightContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
