package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbPlainWorkerTransactionTest extends PlainWorkerTransactionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String claimHolderSql() {
    return "SELECT trx_mysql_thread_id FROM information_schema.innodb_trx WHERE trx_rows_modified > 0"
        + " AND trx_mysql_thread_id <> CONNECTION_ID()";
  }

  @Override
  String killSql(long sessionId) {
    return "KILL CONNECTION " + sessionId;
  }
}
