package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;

/**
 * H2 gives each new session the JVM's default zone as its TIME ZONE setting: both are Europe/Berlin.
 * H2 caches the default zone when it first needs it, so an earlier H2 test in the same JVM would
 * leave its sessions in that test's zone: the cache is reset after the default changed, and again
 * after it is restored.
 */
class H2TimeZoneTest extends TimeZoneContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  Runnable useSessionZone() {
    org.h2.util.DateTimeUtils.resetCalendar();
    return org.h2.util.DateTimeUtils::resetCalendar;
  }

  @Override
  String sessionZone() {
    return String.valueOf(Rows.query(database(), "SELECT SETTING_VALUE AS zone FROM INFORMATION_SCHEMA.SETTINGS"
        + " WHERE SETTING_NAME = 'TIME ZONE'").get(0).get("zone"));
  }
}
