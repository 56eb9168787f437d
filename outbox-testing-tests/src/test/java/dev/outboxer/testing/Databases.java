package dev.outboxer.testing;

/** The tests' PostgreSQL database, created on first use by {@link TestDatabase}. */
final class Databases {

  private Databases() {}

  /** The URL of the module's own PostgreSQL database; fails (or skips, see TestDatabase) if unreachable. */
  static String postgresUrl() {
    TestDatabase.POSTGRESQL.assumeAvailable(); // creates the database on first use
    return TestDatabase.POSTGRESQL.url();
  }
}
