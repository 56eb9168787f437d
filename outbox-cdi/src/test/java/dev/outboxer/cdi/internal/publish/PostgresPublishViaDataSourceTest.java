package dev.outboxer.cdi.internal.publish;

import dev.outboxer.testing.TestDatabase;

/** The publish contract with the data source given to Outboxer directly, not through the EntityManager. */
class PostgresPublishViaDataSourceTest extends PublishContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  boolean viaDataSource() {
    return true;
  }
}
