package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import javax.sql.DataSource;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The three forms the schema ships in (plain script, Flyway migration, Liquibase changelog) each
 * create the same tables, columns and indexes, which the inbox accepts, on every database.
 */
class InboxMigrationsTest {

  private static final String FLYWAY_TABLE = "outboxer_inbox_flyway_history";

  @ParameterizedTest
  @EnumSource(value = TestDatabase.class, names = {"POSTGRESQL", "MARIADB", "H2"}) // SQLite: the plain script only
  void flywayAndLiquibaseCreateTheSchemaThePlainScriptCreates(TestDatabase database) throws Exception {
    database.assumeAvailable();
    DataSource dataSource = InboxTestSchema.dataSource(database);
    InboxTestSchema.reset(database);
    List<String> fromScript = describe(dataSource);

    dropEverything(database);
    Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:META-INF/outboxer/inbox/flyway/" + database.configValue())
        // A history table of its own: the inbox's V1 must not meet another V1 in the application's.
        .table(FLYWAY_TABLE)
        // The consumer's schema already has its own tables: start the inbox's history below V1.
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
    List<String> fromFlyway = describe(dataSource);

    dropEverything(database);
    liquibaseUpdate(dataSource, "META-INF/outboxer/inbox/liquibase/" + database.configValue() + ".xml");
    List<String> fromLiquibase = describe(dataSource);

    assertThat(fromScript).contains("outbox_inbox.group_key", "outbox_inbox_message.message_id",
        "index outbox_inbox_processed_idx");
    assertThat(fromFlyway).isEqualTo(fromScript);
    assertThat(fromLiquibase).isEqualTo(fromScript);
    assertThat(Inbox.builder(dataSource).build()).isNotNull();
    dropEverything(database);
  }

  /**
   * The way the README recommends: the application's Flyway, with its default location {@code
   * db/migration} (this module's test resources hold an application's V1 there), never picks up the
   * inbox's migrations, which a second Flyway applies from their own location with their own history.
   */
  @ParameterizedTest
  @EnumSource(value = TestDatabase.class, names = {"POSTGRESQL", "MARIADB", "H2"})
  void flywayMigrationsRunBesideTheApplicationsOwnMigrationsWithTheirOwnHistory(TestDatabase database)
      throws Exception {
    database.assumeAvailable();
    DataSource dataSource = InboxTestSchema.dataSource(database);
    dropEverything(database);

    // Flyway's defaults, but for a baseline: the test database holds other tests' tables, as an
    // application's may hold tables from before it used Flyway.
    Flyway.configure().dataSource(dataSource).baselineOnMigrate(true).baselineVersion("0").load().migrate();
    assertThat(describeTable(dataSource, "application_order")).isNotEmpty();
    assertThat(describe(dataSource)).as("the application's Flyway applied the inbox's migrations").isEmpty();

    Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:META-INF/outboxer/inbox/flyway/" + database.configValue())
        .table(FLYWAY_TABLE)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
    assertThat(describe(dataSource)).contains("outbox_inbox.group_key", "outbox_inbox_message.message_id");
    assertThat(describeTable(dataSource, "application_order")).isNotEmpty();
    assertThat(Inbox.builder(dataSource).build()).isNotNull();
    dropEverything(database);
  }

  @SuppressWarnings("deprecation")
  private static void liquibaseUpdate(DataSource dataSource, String changelog) throws Exception {
    try (Connection connection = dataSource.getConnection()) {
      Database target = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
      try (Liquibase liquibase = new Liquibase(changelog, new ClassLoaderResourceAccessor(), target)) {
        liquibase.update("");
      }
    }
  }

  /** The inbox's tables as "table.column type(size) null|not null" lines and "index name" lines, sorted. */
  private static List<String> describe(DataSource dataSource) throws SQLException {
    return describe(dataSource, InboxSchema.TABLES.keySet());
  }

  private static List<String> describeTable(DataSource dataSource, String table) throws SQLException {
    return describe(dataSource, List.of(table));
  }

  private static List<String> describe(DataSource dataSource, Collection<String> tables) throws SQLException {
    TreeSet<String> lines = new TreeSet<>();
    try (Connection connection = dataSource.getConnection()) {
      DatabaseMetaData meta = connection.getMetaData();
      boolean upper = meta.storesUpperCaseIdentifiers();
      for (String table : tables) {
        String name = upper ? table.toUpperCase(Locale.ROOT) : table;
        try (ResultSet columns = meta.getColumns(connection.getCatalog(), connection.getSchema(), name, null)) {
          while (columns.next()) {
            String column = table + "." + columns.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
            lines.add(column);
            lines.add(column + " " + columns.getString("TYPE_NAME") + "(" + columns.getInt("COLUMN_SIZE") + ") "
                + (columns.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls ? "not null" : "null"));
          }
        }
        try (ResultSet keys = meta.getPrimaryKeys(connection.getCatalog(), connection.getSchema(), name)) {
          while (keys.next()) {
            lines.add("primary key " + table + "." + keys.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
          }
        }
        try (ResultSet indexes = meta.getIndexInfo(connection.getCatalog(), connection.getSchema(), name, false, false)) {
          while (indexes.next()) {
            String index = indexes.getString("INDEX_NAME");
            if (index != null && index.toLowerCase(Locale.ROOT).endsWith("_idx")) {
              lines.add("index " + index.toLowerCase(Locale.ROOT));
            }
          }
        }
      }
    }
    return new ArrayList<>(lines);
  }

  /** The inbox tables, the application's and the migration tools' own (all created by this test), nothing else. */
  private static void dropEverything(TestDatabase database) {
    InboxTestSchema.drop(database);
    // Liquibase spells its tables in capitals; MariaDB on Linux tells the two spellings apart.
    // Flyway quotes its history table's name: on H2 it stays lower-case, unlike an unquoted DROP's.
    String quote = database == TestDatabase.MARIADB ? "`" : "\"";
    database.execute("DROP TABLE IF EXISTS " + quote + FLYWAY_TABLE + quote,
        "DROP TABLE IF EXISTS " + quote + "flyway_schema_history" + quote,
        "DROP TABLE IF EXISTS application_order", "DROP TABLE IF EXISTS databasechangelog",
        "DROP TABLE IF EXISTS databasechangeloglock", "DROP TABLE IF EXISTS DATABASECHANGELOG",
        "DROP TABLE IF EXISTS DATABASECHANGELOGLOCK");
  }
}
