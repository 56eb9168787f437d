package dev.outboxer.inbox;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Checks that the inbox tables are there with the columns it uses. */
final class InboxSchema {

  /** Every table with the columns the inbox reads or writes. */
  static final Map<String, List<String>> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put("outbox_inbox", List.of("outbox", "group_key", "last_id", "processed_at"));
    TABLES.put("outbox_inbox_message", List.of("outbox", "message_id", "processed_at"));
  }

  private InboxSchema() {}

  /**
   * @throws InboxException naming each missing table and column, and the ways to create them
   */
  static void check(Connection connection, InboxDialect dialect) throws SQLException {
    List<String> missing = missing(connection);
    if (!missing.isEmpty()) {
      String script = "The inbox tables are missing or incomplete in this database: missing "
          + String.join(", ", missing) + ". Create them with the script " + dialect.ddlResource()
          + " in outbox-inbox.jar";
      throw new InboxException(!dialect.shipsMigrations() ? script : script
          + " (it is also the Flyway migration: run a Flyway of its own with the location"
          + " classpath:META-INF/outboxer/inbox/flyway/" + dialect.configValue()
          + " and the table outboxer_inbox_flyway_history), or include the Liquibase changelog"
          + " META-INF/outboxer/inbox/liquibase/" + dialect.configValue() + ".xml");
    }
  }

  /** The objects that are not there, as "table x" and "column x.y". */
  static List<String> missing(Connection connection) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    boolean upper = meta.storesUpperCaseIdentifiers();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, List<String>> table : TABLES.entrySet()) {
      String name = upper ? table.getKey().toUpperCase(java.util.Locale.ROOT) : table.getKey();
      Set<String> columns = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
      try (ResultSet rows = meta.getColumns(connection.getCatalog(), connection.getSchema(), name, null)) {
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
}
