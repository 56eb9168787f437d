package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

class PostgresContractTest extends DatabaseContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  /** pg_advisory_xact_lock waits show up as ungranted advisory locks. */
  @Override
  String lockWaitsQuery() {
    return "SELECT COUNT(*) FROM pg_locks WHERE NOT granted AND locktype = 'advisory'";
  }
}
