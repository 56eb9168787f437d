package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

/**
 * SQLite has no session time zone: Outboxer's times are UTC text as the driver writes a
 * LocalDateTime, which no zone of the JVM (Europe/Berlin here) shifts.
 */
class SqliteTimeZoneTest extends TimeZoneContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }

  @Override
  Runnable useSessionZone() {
    return () -> {};
  }

  @Override
  boolean hasSessionZone() {
    return false;
  }

  @Override
  String sessionZone() {
    return "none (SQLite has no session time zone)";
  }
}
