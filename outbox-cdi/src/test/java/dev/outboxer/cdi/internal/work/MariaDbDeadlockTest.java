package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbDeadlockTest extends DeadlockContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String lockWaitsSql() {
    return "SELECT COUNT(*) FROM information_schema.INNODB_TRX t"
        + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
        + " WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()";
  }
}
