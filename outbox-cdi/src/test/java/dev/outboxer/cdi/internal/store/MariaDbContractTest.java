package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class MariaDbContractTest extends DatabaseContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String lockWaitsQuery() {
    return "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
  }
}
