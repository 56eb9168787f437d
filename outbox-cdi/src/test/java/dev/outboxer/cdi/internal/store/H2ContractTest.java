package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class H2ContractTest extends DatabaseContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  /**
   * H2 reports a session waiting for a row lock (BLOCKER_ID), but not one whose insert waits for a
   * concurrent uncommitted insert of the same key, which is how the first use of a group's lock row
   * waits: such a session is still executing its insert.
   */
  @Override
  String lockWaitsQuery() {
    return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL"
        + " OR EXECUTING_STATEMENT LIKE 'INSERT INTO outbox_group_lock%'";
  }

  @Override
  @org.junit.jupiter.api.Test
  void a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group()
      throws Exception {
    super.a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group();
  }
}
