package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The start-up check of Outboxer's schema: a missing or outdated table, column, sequence or index
 * fails the start with a message naming each missing object and the fix, instead of every publish
 * failing later; {@code outbox.schema=create} creates a missing schema.
 */
abstract class SchemaCheckContractTest {

  abstract TestDatabase database();

  /** A statement that removes one column Outboxer needs. */
  String dropColumn() {
    return "ALTER TABLE outbox_message DROP COLUMN partition_key";
  }

  /** A statement that removes the fencing token sequence (SQLite: its counter row). */
  String dropFencingSequence() {
    return "DROP SEQUENCE outbox_fencing_seq";
  }

  private OutboxTestContainer start(String schemaMode) {
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(database()).keepSchema()
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class);
    if (schemaMode != null) {
      builder.config("outbox.schema", schemaMode);
    }
    return builder.start();
  }

  @Test
  void a_missing_column_fails_the_start_naming_the_column_and_the_script() {
    database().resetSchema();
    database().execute(dropColumn());
    assertThatThrownBy(() -> start(null).close())
        .hasStackTraceContaining("Outboxer's schema is incomplete or outdated")
        .hasStackTraceContaining("column outbox_message.partition_key")
        .hasStackTraceContaining("META-INF/outboxer/ddl/" + database().configValue() + ".sql");
  }

  @Test
  void a_missing_index_and_sequence_are_named() {
    database().resetSchema();
    database().execute("DROP INDEX outbox_message_retry_idx" + (database() == TestDatabase.MARIADB
        ? " ON outbox_message" : ""), dropFencingSequence());
    assertThatThrownBy(() -> start("validate").close())
        .hasStackTraceContaining("index outbox_message_retry_idx")
        .hasStackTraceContaining("sequence outbox_fencing_seq");
  }

  /** Outboxer's tables gone; the test kit's own entity table stays (its mapping is validated). */
  void dropOutboxerSchema() {
    database().dropSchema();
    database().execute("CREATE TABLE test_order (id BIGINT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL)");
  }

  @Test
  void a_missing_schema_fails_the_start_and_says_how_to_create_it() {
    dropOutboxerSchema();
    assertThatThrownBy(() -> start(null).close())
        .hasStackTraceContaining("Outboxer's schema is missing in this database")
        .hasStackTraceContaining("outbox.schema=create")
        .hasStackTraceContaining("META-INF/outboxer/ddl/" + database().configValue() + ".sql")
        .hasStackTraceContaining("PrintDdl " + database().configValue())
        .hasStackTraceContaining("classpath:META-INF/outboxer/flyway/" + database().configValue())
        .hasStackTraceContaining("META-INF/outboxer/liquibase/" + database().configValue() + ".xml");
  }

  @Test
  void with_schema_none_nothing_is_checked() {
    database().resetSchema();
    database().execute("DROP INDEX outbox_message_retry_idx" + (database() == TestDatabase.MARIADB
        ? " ON outbox_message" : ""));
    start("none").close();
  }

  @Test
  void with_schema_create_a_missing_schema_is_created_and_works() throws Exception {
    dropOutboxerSchema();
    try (OutboxTestContainer container = start("create")) {
      long id = container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Keyed("k", 1)));
      assertThat(container.tables().message(id)).isPresent();
    }
  }
}
