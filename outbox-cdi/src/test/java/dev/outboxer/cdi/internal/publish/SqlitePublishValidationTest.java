package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;
import org.junit.jupiter.api.Test;

class SqlitePublishValidationTest extends PublishValidationContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }

  /**
   * SQLite's payload limit, without a gigabyte of test data: publish applies 1,000,000,000 bytes,
   * and the driver's SQLite takes a BLOB of exactly that size and refuses one byte more
   * (SQLITE_TOOBIG; a zero-filled BLOB costs no memory to ask for).
   */
  @Test
  void the_payload_limit_publish_applies_is_exactly_the_largest_blob_the_drivers_sqlite_takes() throws Exception {
    MessageLimits.Limits limits = container.select(MessageLimits.class).of(OUTBOX);
    assertThat(limits.maxPayloadBytes()).isEqualTo(1_000_000_000L);
    assertThat(limits.payloadLimitSource()).isEqualTo("the largest payload sqlite takes");

    assertThat(Rows.query(database(), "SELECT length(zeroblob(1000000000)) AS n").get(0).get("n"))
        .as("a BLOB at the limit").isEqualTo(1_000_000_000);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Rows.query(database(), "SELECT length(zeroblob(1000000001)) AS n"))
        .as("a BLOB one byte over the limit").rootCause().hasMessageContaining("SQLITE_TOOBIG");
  }
}
