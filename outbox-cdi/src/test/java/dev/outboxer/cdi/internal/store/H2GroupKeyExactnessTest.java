package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;

/** H2 compares VARCHAR as exact UTF-16 text unless the database's collation or IGNORECASE says otherwise. */
class H2GroupKeyExactnessTest extends GroupKeyExactnessContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }
}
