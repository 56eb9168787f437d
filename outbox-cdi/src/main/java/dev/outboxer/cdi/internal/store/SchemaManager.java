package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.SchemaMode;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.SqlScripts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * Checks at start-up that Outboxer's schema is there, complete and current, and creates it on
 * request ({@code outbox.schema=create}). A missing or outdated table, column, sequence or index
 * fails the deployment with a message naming each missing object and the fix, instead of every
 * publish failing later. On SQLite a sequence is a row of the {@code outbox_sequence} table.
 */
@ApplicationScoped
public class SchemaManager {

  /** {@code outbox.schema}. */
  private static final String SCHEMA_KEY = ConfigKeys.global(CoreSettings.SCHEMA);

  private static final Logger LOG = Logger.getLogger(SchemaManager.class.getName());

  /** Every table with the columns Outboxer reads or writes. */
  static final Map<String, List<String>> TABLES = new LinkedHashMap<>();
  static final List<String> SEQUENCES = List.of("outbox_message_seq", "outbox_fencing_seq");
  /** SQLite has no sequences: a table of counters, one row per sequence (see sqlite.sql). */
  static final String SQLITE_COUNTERS = "outbox_sequence";
  static final List<String> INDEXES = List.of("outbox_message_ready_idx", "outbox_message_retry_idx");

  static {
    TABLES.put("outbox_message", List.of("id", "outbox", "partition_no", "partition_key", "group_key", "message_type",
        "content_type", "payload", "headers", "status", "attempts", "next_attempt_at", "created_at", "last_attempt_at",
        "last_error"));
    TABLES.put("outbox_partition", List.of("outbox", "partition_no", "fencing_token", "owner_node", "owner_instance",
        "claimed_at"));
    TABLES.put("outbox_rules", List.of("outbox", "ordering_mode", "partition_count", "layout_version", "max_attempts",
        "backoff_min_ms", "backoff_max_ms", "updated_at", "updated_by"));
  }

  @Inject Jdbc jdbc;
  @Inject Transactions transactions;
  @Inject Database database;

  /** Validates (and with CREATE first creates) the schema; returns a short description of its state for the log. */
  public String prepare(SchemaMode mode) throws Exception {
    if (mode == SchemaMode.NONE) {
      return "not checked (" + SCHEMA_KEY + "=none)";
    }
    Dialect dialect = database.dialect();
    List<String> missing = transactions.inNewTransaction(Duration.ofSeconds(60), () -> jdbc.call(this::missing));
    boolean created = false;
    if (!missing.isEmpty() && mode == SchemaMode.CREATE && missing.size() == everything(dialect).size()) {
      if (!dialect.ddlInJtaTransactions()) {
        // DDL commits implicitly, which MariaDB refuses inside an XA transaction: nothing would be created.
        throw new OutboxConfigurationException(SCHEMA_KEY, SCHEMA_KEY + "=create: MariaDB cannot create"
            + " tables inside a JTA transaction, and Outboxer reaches the database only through the application's"
            + " transactions. Create the schema before the application starts, with the script "
            + dialect.ddlResource() + " in outbox-cdi.jar or the Flyway/Liquibase migrations shipped with it.");
      }
      transactions.inNewTransaction(Duration.ofSeconds(120), () -> jdbc.call(connection -> {
        create(connection, dialect);
        return null;
      }));
      LOG.info("Outboxer created its schema from " + dialect.ddlResource() + " (" + SCHEMA_KEY + "=create)");
      missing = transactions.inNewTransaction(Duration.ofSeconds(60), () -> jdbc.call(this::missing));
      created = true;
    }
    if (!missing.isEmpty()) {
      boolean none = missing.size() == everything(dialect).size();
      throw new OutboxConfigurationException(SCHEMA_KEY, "Outboxer's schema is " + (none
          ? "missing in this database: tables " + String.join(", ", tables(dialect).keySet())
          + " (with their sequences and indexes)"
          : "incomplete or outdated in this database: missing " + summary(missing)) + ". Create it with the script " + dialect.ddlResource() + " in outbox-cdi.jar"
          + " (print it with: java -cp outbox-cdi.jar:outbox-api.jar dev.outboxer.cdi.internal.store.PrintDdl "
          + dialect.configValue() + "), or the Flyway migrations (classpath:"
          + dialect.flywayLocation() + ", with a history table of their own) or Liquibase changelog ("
          + dialect.liquibaseChangelog() + ") shipped in the jar" + (mode == SchemaMode.VALIDATE ? "; for development, " + SCHEMA_KEY
          + "=create creates a missing schema at start-up" : "") + ".");
    }
    return created ? "created" : "valid";
  }

  /**
   * The missing objects, shortest first: the columns of a missing table go without saying, and a
   * long list is cut after ten.
   */
  static String summary(List<String> missing) {
    List<String> shown = new ArrayList<>();
    for (String object : missing) {
      boolean ofMissingTable = object.startsWith("column ")
          && missing.contains("table " + object.substring("column ".length(), object.lastIndexOf('.')));
      if (!ofMissingTable) {
        shown.add(object);
      }
    }
    if (shown.size() <= 10) {
      return String.join(", ", shown);
    }
    return String.join(", ", shown.subList(0, 10)) + " and " + (shown.size() - 10) + " more";
  }

  /** The tables Outboxer needs in this database, with their columns. */
  static Map<String, List<String>> tables(Dialect dialect) {
    if (!dialect.singleWriter()) {
      return TABLES;
    }
    Map<String, List<String>> tables = new LinkedHashMap<>(TABLES);
    tables.put(SQLITE_COUNTERS, List.of("name", "last_value"));
    return tables;
  }

  private static List<String> everything(Dialect dialect) {
    List<String> all = new ArrayList<>();
    Map<String, List<String>> tables = tables(dialect);
    tables.forEach((table, columns) -> all.add("table " + table));
    tables.forEach((table, columns) -> columns.forEach(column -> all.add("column " + table + "." + column)));
    SEQUENCES.forEach(sequence -> all.add("sequence " + sequence));
    INDEXES.forEach(index -> all.add("index " + index));
    return all;
  }

  /** The objects that are not there, described as "table x", "column x.y", "sequence x", "index x". */
  List<String> missing(Connection connection) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    boolean upper = meta.storesUpperCaseIdentifiers();
    String catalog = connection.getCatalog();
    String schema = connection.getSchema();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, List<String>> table : tables(database.dialect()).entrySet()) {
      Set<String> columns = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
      try (ResultSet rows = meta.getColumns(catalog, schema, name(table.getKey(), upper), null)) {
        while (rows.next()) {
          columns.add(rows.getString("COLUMN_NAME"));
        }
      }
      if (columns.isEmpty()) {
        missing.add("table " + table.getKey());
        table.getValue().forEach(column -> missing.add("column " + table.getKey() + "." + column));
        continue;
      }
      for (String column : table.getValue()) {
        if (!columns.contains(column)) {
          missing.add("column " + table.getKey() + "." + column);
        }
      }
    }
    Set<String> sequences = database.dialect().sql().sequenceNames(connection, catalog, schema);
    for (String sequence : SEQUENCES) {
      if (!sequences.contains(sequence)) {
        missing.add("sequence " + sequence);
      }
    }
    Set<String> indexes = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    try (ResultSet rows = meta.getIndexInfo(catalog, schema, name("outbox_message", upper), false, true)) {
      while (rows.next()) {
        String index = rows.getString("INDEX_NAME");
        if (index != null) {
          indexes.add(index);
        }
      }
    }
    for (String index : INDEXES) {
      if (!indexes.contains(index)) {
        missing.add("index " + index);
      }
    }
    return missing;
  }

  private static String name(String name, boolean upper) {
    return upper ? name.toUpperCase(Locale.ROOT) : name;
  }

  private static void create(Connection connection, Dialect dialect) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : SqlScripts.statements(ddl(dialect))) {
        statement.execute(sql);
      }
    }
  }

  /** The DDL script shipped for a database. */
  public static String ddl(Dialect dialect) {
    try (InputStream in = SchemaManager.class.getClassLoader().getResourceAsStream(dialect.ddlResource())) {
      if (in == null) {
        throw new IllegalStateException(dialect.ddlResource() + " is missing from outbox-cdi.jar. Indicates a bug.");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
