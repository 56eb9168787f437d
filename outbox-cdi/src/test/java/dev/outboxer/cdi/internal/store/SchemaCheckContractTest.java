package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxConfigurationException;
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
  void a_missing_schema_names_the_missing_tables_not_each_of_their_columns_and_then_the_fix() {
    dropOutboxerSchema();
    Throwable refused = catchThrowable(() -> start(null).close());
    OutboxConfigurationException problem = findCause(refused, OutboxConfigurationException.class);

    assertThat(problem.getMessage()).as(problem.getMessage())
        .startsWith("Outboxer's schema is missing in this database: tables outbox_message, outbox_partition,"
            + " outbox_rules")
        .doesNotContain("column outbox_message.")
        .hasSizeLessThan(900);
    assertThat(problem.getMessage().indexOf("outbox_rules")).as("the tables come before the fix")
        .isLessThan(problem.getMessage().indexOf("Create it"));
  }

  private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
      for (Throwable suppressed : cause.getSuppressed()) {
        if (type.isInstance(suppressed)) {
          return type.cast(suppressed);
        }
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in " + failure, failure);
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
