package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class H2ContractTest extends DatabaseContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  String lockWaitsQuery() {
    return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
  }
}
