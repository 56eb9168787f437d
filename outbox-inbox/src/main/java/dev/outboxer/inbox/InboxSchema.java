package dev.outboxer.inbox;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks that the inbox tables are there with the columns it uses, each table with the unique key
 * its statements rely on, and columns that hold every outbox name, group key and id the outbox
 * sends. Not checked: indexes on {@code processed_at} (only purge is slower without them), and on
 * PostgreSQL the database encoding and non-deterministic collations.
 */
final class InboxSchema {

  /** Every table with the columns the inbox reads or writes. */
  static final Map<String, List<String>> TABLES = new LinkedHashMap<>();

  /**
   * The unique key of each table. Without it a copy is not recognised: MariaDB's upsert and {@code
   * INSERT IGNORE} insert a second row and the copy is processed; PostgreSQL's upsert fails.
   */
  static final Map<String, Set<String>> KEYS = new LinkedHashMap<>();

  /** The SQLStates of a missing table (PostgreSQL, MariaDB and H2), column, or unique key (PostgreSQL). */
  private static final Set<String> SCHEMA_STATES = Set.of("42P01", "42S02", "42S04", "42703", "42S22", "42P10");

  static {
    TABLES.put("outbox_inbox", List.of("outbox", "group_key", "last_id", "processed_at"));
    TABLES.put("outbox_inbox_message", List.of("outbox", "message_id", "processed_at"));
    KEYS.put("outbox_inbox", Set.of("outbox", "group_key"));
    KEYS.put("outbox_inbox_message", Set.of("outbox", "message_id"));
  }

  private InboxSchema() {}

  /**
   * @throws InboxException naming each missing table and column, each missing key and each column
   *     too small or comparing keys loosely, and the ways to create the tables
   */
  static void check(Connection connection, InboxDialect dialect) throws SQLException {
    List<String> missing = missing(connection);
    if (!missing.isEmpty()) {
      throw new InboxException("The inbox tables are missing or incomplete in this database: missing "
          + String.join(", ", missing) + ". C" + howToCreate(dialect).substring(1));
    }
    List<String> unfit = unfit(connection, dialect);
    if (!unfit.isEmpty()) {
      throw new InboxException("The inbox tables in this database are not as the inbox needs them: "
          + String.join("; ", unfit) + ". Drop them and " + howToCreate(dialect));
    }
  }

  /** "create them with ...": the plain script, and, but on SQLite, the Flyway and Liquibase forms. */
  static String howToCreate(InboxDialect dialect) {
    String script = "create them with the script " + dialect.ddlResource() + " in outbox-inbox.jar (print it with:"
        + " java -cp outbox-inbox.jar " + PrintInboxDdl.class.getName() + " " + dialect.configValue() + ")";
    return !dialect.shipsMigrations() ? script : script
        + " (it is also the Flyway migration: run a Flyway of its own with the location"
        + " classpath:META-INF/outboxer/inbox/flyway/" + dialect.configValue()
        + " and the table outboxer_inbox_flyway_history), or include the Liquibase changelog"
        + " META-INF/outboxer/inbox/liquibase/" + dialect.configValue() + ".xml";
  }

  /**
   * Whether a failed statement failed for want of a table, a column or (PostgreSQL) a unique key:
   * the tables were not created, or changed since the start-up check (or it was off).
   */
  static boolean isSchemaFailure(SQLException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        if (sql.getSQLState() != null && SCHEMA_STATES.contains(sql.getSQLState())) {
          return true;
        }
        // SQLite's driver gives no SQLState.
        String message = String.valueOf(sql.getMessage());
        if (message.contains("no such table") || message.contains("no such column")
            || message.contains("does not match any PRIMARY KEY or UNIQUE constraint")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The objects that are not there, as "table x" and "column x.y". */
  static List<String> missing(Connection connection) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, List<String>> table : TABLES.entrySet()) {
      Set<String> columns = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
      try (ResultSet rows = meta.getColumns(connection.getCatalog(), connection.getSchema(),
          name(meta, table.getKey()), null)) {
        while (rows.next()) {
          columns.add(rows.getString("COLUMN_NAME"));
        }
      }
      if (columns.isEmpty()) {
        missing.add("table " + table.getKey());
        continue;
      }
      for (String column : table.getValue()) {
        if (!columns.contains(column)) {
          missing.add("column " + table.getKey() + "." + column);
        }
      }
    }
    return missing;
  }

  /** What is there but would let copies through or refuse what the outbox sends, one phrase each. */
  static List<String> unfit(Connection connection, InboxDialect dialect) throws SQLException {
    List<String> unfit = new ArrayList<>();
    for (Map.Entry<String, Set<String>> key : KEYS.entrySet()) {
      if (!uniqueKeys(connection, key.getKey()).contains(key.getValue())) {
        unfit.add("table " + key.getKey() + " has no primary key or unique constraint on ("
            + String.join(", ", TABLES.get(key.getKey()).stream().filter(key.getValue()::contains).toList())
            + "), so copies of a message would not be recognised");
      }
    }
    if (dialect == InboxDialect.SQLITE) {
      return unfit; // SQLite stores any value in any column: no types or sizes to check.
    }
    for (String table : TABLES.keySet()) {
      DatabaseMetaData meta = connection.getMetaData();
      try (ResultSet rows = meta.getColumns(connection.getCatalog(), connection.getSchema(), name(meta, table), null)) {
        while (rows.next()) {
          String column = rows.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
          String problem = columnProblem(dialect, column, rows.getInt("DATA_TYPE"), rows.getString("TYPE_NAME"),
              rows.getInt("COLUMN_SIZE"), rows.getInt("DECIMAL_DIGITS"));
          if (problem != null) {
            unfit.add("column " + table + "." + column + " " + problem);
          }
        }
      }
    }
    if (dialect == InboxDialect.MARIADB) {
      unfit.addAll(mariaDbCollations(connection));
    }
    return unfit;
  }

  private static String columnProblem(InboxDialect dialect, String column, int dataType, String typeName, int size,
      int scale) {
    String type = typeName + (size > 0 && size < Integer.MAX_VALUE ? "(" + size + ")" : "");
    switch (column) {
      case "last_id", "message_id" -> {
        boolean wide = dataType == Types.BIGINT
            || (dataType == Types.NUMERIC || dataType == Types.DECIMAL) && size >= 19 && scale == 0;
        return wide ? null : "is " + type + ": it must be BIGINT, as outbox ids are (64 bits)";
      }
      case "outbox" -> {
        if (!text(dataType)) {
          return "is " + type + ": it must be VARCHAR(" + InboxMessage.MAX_OUTBOX_LENGTH + ")";
        }
        return size >= InboxMessage.MAX_OUTBOX_LENGTH ? ignoringCase(typeName, "outbox names") : "is " + type
            + ": it must hold outbox names of " + InboxMessage.MAX_OUTBOX_LENGTH + " characters";
      }
      case "group_key" -> {
        // H2 counts a VARCHAR in UTF-16 units, where an emoji takes two; PostgreSQL and MariaDB count characters.
        int needed = dialect == InboxDialect.H2 ? 2 * InboxMessage.MAX_GROUP_KEY_LENGTH : InboxMessage.MAX_GROUP_KEY_LENGTH;
        String rule = "group keys of " + InboxMessage.MAX_GROUP_KEY_LENGTH + " characters (Unicode code points), as the"
            + " outbox allows" + (dialect == InboxDialect.H2 ? "; H2 counts UTF-16 units, so VARCHAR(" + needed + ")" : "");
        if (!text(dataType)) {
          return "is " + type + ": it must be VARCHAR(" + needed + ") and hold " + rule;
        }
        return size >= needed ? ignoringCase(typeName, "group keys") : "is " + type + ": it must hold " + rule;
      }
      default -> {
        return null;
      }
    }
  }

  private static boolean text(int dataType) {
    return switch (dataType) {
      case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR, Types.CLOB,
          Types.NCLOB -> true;
      default -> false;
    };
  }

  /** H2's VARCHAR_IGNORECASE and PostgreSQL's citext take 'a' and 'A' for one key. */
  private static String ignoringCase(String typeName, String what) {
    String type = typeName.toLowerCase(Locale.ROOT);
    return type.contains("ignorecase") || type.equals("citext")
        ? "is " + typeName + ", which takes " + what + " that differ in case for one: it must compare exactly (VARCHAR)"
        : null;
  }

  /**
   * MariaDB compares by the column's collation: a case-insensitive one takes 'Order:1' and 'order:1'
   * for one group, a PAD SPACE one 'a' and 'a ', and the message of the second is dropped as a copy;
   * a character set other than utf8mb4 cannot store every key (emoji).
   */
  private static List<String> mariaDbCollations(Connection connection) throws SQLException {
    List<String> unfit = new ArrayList<>();
    try (PreparedStatement query = connection.prepareStatement("SELECT TABLE_NAME, COLUMN_NAME, CHARACTER_SET_NAME,"
        + " COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
        + " AND TABLE_NAME IN ('outbox_inbox', 'outbox_inbox_message') AND COLUMN_NAME IN ('outbox', 'group_key')"
        + " ORDER BY TABLE_NAME, COLUMN_NAME DESC")) {
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          String column = rows.getString(1).toLowerCase(Locale.ROOT) + "." + rows.getString(2).toLowerCase(Locale.ROOT);
          String charset = String.valueOf(rows.getString(3)).toLowerCase(Locale.ROOT);
          String collation = String.valueOf(rows.getString(4)).toLowerCase(Locale.ROOT);
          if (column.endsWith(".group_key")) {
            if (!charset.equals("utf8mb4")) {
              unfit.add("column " + column + " has the character set " + charset + ", which cannot hold every group key"
                  + " (emoji): it must be utf8mb4 with the collation utf8mb4_nopad_bin");
            } else if (!collation.endsWith("_nopad_bin")) {
              unfit.add("column " + column + " has the collation " + collation + ", which takes different group keys"
                  + " ('a', 'A' or 'a ') for one group: it must be utf8mb4_nopad_bin");
            }
          } else if (!collation.endsWith("_bin")) {
            unfit.add("column " + column + " has the collation " + collation + ", which takes outbox names that differ"
                + " in case for one: it must be a binary collation (utf8mb4_nopad_bin)");
          }
        }
      }
    }
    return unfit;
  }

  /** The column sets of the table's primary key and unique indexes, lower-case. */
  private static Set<Set<String>> uniqueKeys(Connection connection, String table) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    String name = name(meta, table);
    Map<String, Set<String>> keys = new TreeMap<>();
    try (ResultSet rows = meta.getPrimaryKeys(connection.getCatalog(), connection.getSchema(), name)) {
      while (rows.next()) {
        keys.computeIfAbsent("primary key", k -> new TreeSet<>()).add(lower(rows.getString("COLUMN_NAME")));
      }
    }
    try (ResultSet rows = meta.getIndexInfo(connection.getCatalog(), connection.getSchema(), name, true, false)) {
      while (rows.next()) {
        String index = rows.getString("INDEX_NAME");
        if (index != null && !rows.getBoolean("NON_UNIQUE")) {
          // An expression in the index has no column name: "?" matches no key.
          String column = rows.getString("COLUMN_NAME");
          keys.computeIfAbsent("index " + index, k -> new TreeSet<>()).add(column == null ? "?" : lower(column));
        }
      }
    }
    Set<Set<String>> sets = new java.util.HashSet<>();
    keys.values().forEach(columns -> sets.add(Set.copyOf(columns)));
    return sets;
  }

  private static String lower(String name) {
    return name == null ? "?" : name.toLowerCase(Locale.ROOT);
  }

  private static String name(DatabaseMetaData meta, String table) throws SQLException {
    return meta.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
  }
}
