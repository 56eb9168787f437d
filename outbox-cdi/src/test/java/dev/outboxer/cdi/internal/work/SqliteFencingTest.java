package dev.outboxer.cdi.internal.work;

import dev.outboxer.testing.TestDatabase;

/**
 * Fencing on SQLite, with two nodes (containers) of one process sharing the file: claims take turns
 * on the write lock, and tokens increase across both, also past a claim rolled back by the
 * transaction timeout.
 */
class SqliteFencingTest extends FencingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }
}
