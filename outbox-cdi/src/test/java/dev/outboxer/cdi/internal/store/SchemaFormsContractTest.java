package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.spi.SqlScripts;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.util.List;
import java.util.stream.Stream;
import java.util.logging.Level;
import java.util.logging.Logger;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.ui.LoggerUIService;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The schema forms shipped in outbox-cdi.jar besides the DDL script: the Flyway migrations and the
 * Liquibase changelog of each database (PostgreSQL, MariaDB, H2, SQLite), applied with the real tools to a real empty database,
 * create exactly what the DDL script creates (tables, columns with their types, constraints,
 * indexes, sequences: compared in the database's catalogue), and Outboxer starts on the result
 * with its schema check on and publishes.
 */
abstract class SchemaFormsContractTest {

  /** The migration tools' own bookkeeping tables, which are not part of Outboxer's schema. */
  private static final String[] TOOL_TABLES = {"flyway_schema_history", "outboxer_schema_history",
      "databasechangelog", "databasechangeloglock"};

  abstract TestDatabase database();

  /** A statement (or several, one per line, each ending in ';') that makes the DDL script's schema differ in one column's size. */
  abstract String narrowLastErrorColumn();

  private Dialect dialect() {
    return Dialect.fromConfig(database().configValue()).orElseThrow();
  }

  private String flywayLocation() {
    return "classpath:" + dialect().flywayLocation();
  }

  private String liquibaseChangelog() {
    return dialect().liquibaseChangelog();
  }

  /**
   * Flyway and Liquibase report every step at INFO through java.util.logging: keep passing test runs
   * short. Held in a field, because java.util.logging forgets the level of a logger nobody references.
   */
  private static final List<Logger> TOOL_LOGGERS = Stream.of("liquibase", "org.flywaydb")
      .map(Logger::getLogger).toList();

  @BeforeAll
  static void quietTools() {
    TOOL_LOGGERS.forEach(logger -> logger.setLevel(Level.WARNING));
  }

  /** The schema the plain DDL script creates: what every other form must create. */
  private Catalogue fromDdlScript() {
    try (EmptyDatabase plain = EmptyDatabase.create(database(), "schema_ddl")) {
      plain.execute(SqlScripts.statements(SchemaManager.ddl(dialect())));
      Catalogue catalogue = plain.catalogue();
      // Not a comparison of two empty catalogues.
      assertThat(catalogue.objects()).containsKeys("table outbox_message", "table outbox_partition",
          "table outbox_rules", "column outbox_message.payload", "sequence outbox_message_seq",
          "sequence outbox_fencing_seq");
      return catalogue;
    }
  }

  @Test
  void flyway_migrations_create_the_ddl_scripts_schema_and_outboxer_starts_on_it() throws Exception {
    Catalogue expected = fromDdlScript();
    try (EmptyDatabase migrated = EmptyDatabase.create(database(), "schema_flyway")) {
      Flyway.configure().dataSource(migrated.url(), migrated.user(), migrated.password())
          .locations(flywayLocation()).load().migrate();
      assertThat(migrated.catalogue(TOOL_TABLES).toString()).isEqualTo(expected.toString());
      outboxerStartsAndPublishes(migrated);
    }
  }

  @Test
  void liquibase_changelog_creates_the_ddl_scripts_schema_and_outboxer_starts_on_it() throws Exception {
    Catalogue expected = fromDdlScript();
    try (EmptyDatabase migrated = EmptyDatabase.create(database(), "schema_liquibase")) {
      try (Connection connection = migrated.connect()) {
        Database liquibaseDatabase = DatabaseFactory.getInstance()
            .findCorrectDatabaseImplementation(new JdbcConnection(connection));
        CommandScope update = new CommandScope(UpdateCommandStep.COMMAND_NAME)
            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, liquibaseDatabase)
            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, liquibaseChangelog())
            // The update summary and the success line go to Liquibase's logger, not to the console.
            .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG);
        Scope.child(Scope.Attr.ui.name(), new LoggerUIService(), update::execute);
      }
      assertThat(migrated.catalogue(TOOL_TABLES).toString()).isEqualTo(expected.toString());
      outboxerStartsAndPublishes(migrated);
    }
  }

  /**
   * The way README recommends: Outboxer's migrations keep a history table of their own, so their
   * versions never meet the application's, and the application's Flyway (default location
   * {@code db/migration}) never picks Outboxer's files up.
   */
  @Test
  void flyway_migrations_run_beside_the_applications_own_migrations_with_their_own_history() {
    Catalogue expected = fromDdlScript();
    try (EmptyDatabase migrated = EmptyDatabase.create(database(), "schema_flyway_app")) {
      // The application's own migrations, at Flyway's default location (src/test/resources/db/migration).
      Flyway.configure().dataSource(migrated.url(), migrated.user(), migrated.password()).load().migrate();
      assertThat(migrated.catalogue().has("table application_order")).isTrue();
      assertThat(migrated.catalogue().has("table outbox_message"))
          .as("the application's Flyway applied Outboxer's migrations").isFalse();

      Flyway.configure().dataSource(migrated.url(), migrated.user(), migrated.password())
          .locations(flywayLocation()).table("outboxer_schema_history")
          // The schema is not empty (the application's tables): start Outboxer's history below its V1.
          .baselineOnMigrate(true).baselineVersion("0")
          .load().migrate();
      assertThat(migrated.catalogue(TOOL_TABLES).objects())
          .containsAllEntriesOf(expected.objects())
          .containsKey("table application_order");
    }
  }

  /** The comparison sees a difference as small as one column's size. */
  @Test
  void the_catalogue_comparison_tells_a_changed_column_apart() {
    Catalogue expected = fromDdlScript();
    try (EmptyDatabase changed = EmptyDatabase.create(database(), "schema_changed")) {
      changed.execute(SqlScripts.statements(SchemaManager.ddl(dialect())));
      changed.execute(SqlScripts.statements(narrowLastErrorColumn()));
      assertThat(changed.catalogue().objects().get("column outbox_message.last_error"))
          .isNotEqualTo(expected.objects().get("column outbox_message.last_error"));
      assertThat(changed.catalogue().toString()).isNotEqualTo(expected.toString());
    }
  }

  private void outboxerStartsAndPublishes(EmptyDatabase migrated) throws Exception {
    try (OutboxTestContainer container = OutboxTestContainer.builder(database()).keepSchema()
        .jdbcUrl(migrated.url())
        // The test kit's own entity has no table here: nothing for Hibernate to validate.
        .jpaProperty("hibernate.hbm2ddl.auto", "none")
        .config("outbox.schema", "validate")
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class)
        .start()) {
      long id = container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Keyed("k", 1)));
      assertThat(migrated.count("SELECT COUNT(*) FROM outbox_message WHERE id = " + id)).isEqualTo(1);
    }
  }
}
