package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class PostgresDeadRetentionTest extends DeadRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  String nextIdSql() {
    return "nextval('outbox_message_seq')";
  }
}
