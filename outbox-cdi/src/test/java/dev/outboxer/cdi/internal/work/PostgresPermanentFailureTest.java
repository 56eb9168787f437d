package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresPermanentFailureTest extends PermanentFailureContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  String connectionIdSql() {
    return "SELECT pg_backend_pid()";
  }

  @Override
  String killSql(long connectionId) {
    return "SELECT pg_terminate_backend(" + connectionId + ")";
  }
}
