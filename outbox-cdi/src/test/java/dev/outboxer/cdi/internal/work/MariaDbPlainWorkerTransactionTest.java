package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

class MariaDbPlainWorkerTransactionTest extends PlainWorkerTransactionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String claimHolderSql() {
    // The server is shared: only sessions on this test's database.
    return "SELECT t.trx_mysql_thread_id FROM information_schema.innodb_trx t"
        + " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
        + " WHERE t.trx_rows_modified > 0 AND p.db = DATABASE() AND t.trx_mysql_thread_id <> CONNECTION_ID()";
  }

  @Override
  String killSql(long sessionId) {
    return "KILL CONNECTION " + sessionId;
  }
}
