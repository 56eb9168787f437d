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

  @Override
  @org.junit.jupiter.api.Test
  void a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group()
      throws Exception {
    super.a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group();
  }
}
