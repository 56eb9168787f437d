package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class SqliteWorkerFaultTest extends WorkerFaultContractTest {
  private static final String NO_SERVER = "SQLite runs inside the process: there is no server session to kill from"
      + " another connection, and a commit's outcome is always known to the committing thread";

  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }

  @Override
  String whyConnectionsCannotBeKilled() {
    return NO_SERVER;
  }

  @Override
  String connectionIdSql() {
    throw new UnsupportedOperationException(NO_SERVER);
  }

  @Override
  String killSql(long connectionId) {
    throw new UnsupportedOperationException(NO_SERVER);
  }

  @Override
  String connectionCountSql() {
    throw new UnsupportedOperationException(NO_SERVER);
  }
}
