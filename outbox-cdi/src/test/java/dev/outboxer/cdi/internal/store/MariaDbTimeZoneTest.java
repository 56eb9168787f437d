package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;

/**
 * MariaDB knows named zones only once its time zone tables are loaded ({@code mariadb-tzinfo-to-sql
 * /usr/share/zoneinfo | mariadb -u root mysql}; {@code .ci/run} does it). Where they are, the
 * sessions run in Europe/Berlin too. Where they are not, the test fails in CI
 * ({@value TestDatabase#REQUIRE_PROPERTY}=true); elsewhere only the JVM runs in Europe/Berlin, the
 * session keeps the server's zone, and the session-zone test is skipped saying so.
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
      String missing = "MariaDB has no time zone tables, so its session cannot run in " + ZONE + ": load them with"
          + " mariadb-tzinfo-to-sql /usr/share/zoneinfo | mariadb -h 127.0.0.1 -u root mysql";
      if (Boolean.getBoolean(TestDatabase.REQUIRE_PROPERTY)) {
        org.junit.jupiter.api.Assertions.fail(missing + " (" + TestDatabase.REQUIRE_PROPERTY + "=true)");
      }
      System.out.println(getClass().getSimpleName() + ": " + missing + "; only the JVM runs in " + ZONE);
      zoneTables = false;
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

  private boolean zoneTables = true;

  @Override
  boolean hasSessionZone() {
    return zoneTables;
  }

  @Override
  String sessionZone() {
    return String.valueOf(Rows.query(database(), "SELECT @@session.time_zone AS zone").get(0).get("zone"));
  }
}
