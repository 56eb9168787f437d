package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbDeadRetentionTest extends DeadRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String nextIdSql() {
    return "NEXT VALUE FOR outbox_message_seq";
  }
}
