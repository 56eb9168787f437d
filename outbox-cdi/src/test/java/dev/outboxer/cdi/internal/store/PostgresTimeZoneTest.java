package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;

/** PostgreSQL's JDBC driver sets each session's TimeZone to the JVM's default zone: both are Europe/Berlin. */
class PostgresTimeZoneTest extends TimeZoneContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  Runnable useSessionZone() {
    return () -> {};
  }

  @Override
  String sessionZone() {
    return String.valueOf(Rows.query(database(), "SELECT current_setting('TimeZone') AS zone").get(0).get("zone"));
  }
}
