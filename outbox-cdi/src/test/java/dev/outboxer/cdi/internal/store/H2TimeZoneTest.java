package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;

/** H2 gives each new session the JVM's default zone as its TIME ZONE setting: both are Europe/Berlin. */
class H2TimeZoneTest extends TimeZoneContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  Runnable useSessionZone() {
    return () -> {};
  }

  @Override
  String sessionZone() {
    return String.valueOf(Rows.query(database(), "SELECT SETTING_VALUE AS zone FROM INFORMATION_SCHEMA.SETTINGS"
        + " WHERE SETTING_NAME = 'TIME ZONE'").get(0).get("zone"));
  }
}
