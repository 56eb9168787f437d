package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import org.junit.jupiter.api.Test;

class MariaDbSchemaCheckTest extends SchemaCheckContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  /** MariaDB cannot run DDL inside an XA transaction: create says so instead of half-creating. */
  @Test
  @Override
  void with_schema_create_a_missing_schema_is_created_and_works() {
    dropOutboxerSchema();
    assertThatThrownBy(() -> OutboxTestContainer.builder(database()).keepSchema()
        .config("outbox.worker", "none").config("outbox.orders.relay", "recording").config("outbox.schema", "create")
        .beans(RecordingRelay.class).start().close())
        .hasStackTraceContaining("MariaDB cannot create tables inside a JTA transaction")
        .hasStackTraceContaining("META-INF/outboxer/ddl/mariadb.sql");
  }
}
