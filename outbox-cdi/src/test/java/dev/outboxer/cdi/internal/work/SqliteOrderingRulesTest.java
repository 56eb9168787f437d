package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

/**
 * The seed's ordering and failure rules on SQLite, the seed's second database: its single writer
 * runs one batch at a time, and every rule still holds.
 */
class SqliteOrderingRulesTest extends OrderingRulesTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
