package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;

/**
 * MariaDB knows named zones only once its time zone tables are loaded ({@code mariadb-tzinfo-to-sql
 * /usr/share/zoneinfo | mariadb mysql}). Where they are, the sessions run in Europe/Berlin too;
 * where they are not, only the JVM does, and the session keeps the server's zone.
 */
class MariaDbTimeZoneTest extends TimeZoneContractTest {

  private static final String URL_PROPERTY = "outboxer.test.mariadb.url";

  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  Runnable useSessionZone() {
    Object known = Rows.query(database(), "SELECT CONVERT_TZ('2026-03-29 02:30:00', 'UTC', '" + ZONE + "') AS t")
        .get(0).get("t");
    if (known == null) {
      System.out.println(getClass().getSimpleName() + ": MariaDB has no time zone tables; the session zone stays the"
          + " server's, only the JVM runs in " + ZONE);
      return () -> {};
    }
    String previous = System.getProperty(URL_PROPERTY);
    String url = database().url();
    System.setProperty(URL_PROPERTY, url + (url.contains("?") ? "&" : "?") + "sessionVariables=time_zone='" + ZONE + "'");
    return () -> {
      if (previous == null) {
        System.clearProperty(URL_PROPERTY);
      } else {
        System.setProperty(URL_PROPERTY, previous);
      }
    };
  }

  @Override
  String sessionZone() {
    return String.valueOf(Rows.query(database(), "SELECT @@session.time_zone AS zone").get(0).get("zone"));
  }
}
