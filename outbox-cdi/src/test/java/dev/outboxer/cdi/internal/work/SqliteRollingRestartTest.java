package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

/** Changing the partition count with two nodes (containers) of one process on one SQLite file. */
class SqliteRollingRestartTest extends RollingRestartContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
