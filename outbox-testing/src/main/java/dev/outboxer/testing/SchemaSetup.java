package dev.outboxer.testing;

import dev.outboxer.spi.SqlScripts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates Outboxer's schema from the DDL script outbox-cdi.jar ships, when its message table is
 * not there, and the inbox's tables from outbox-inbox.jar's script when that jar is on the class
 * path and its table is not there. With plain JDBC before Outboxer starts, because Outboxer reaches
 * the database only in JTA transactions, in which MariaDB refuses DDL.
 */
final class SchemaSetup {

  private SchemaSetup() {}

  /** @return whether the schema was created */
  static boolean createIfMissing(JdbcTarget target) {
    boolean created = create(target, "META-INF/outboxer/ddl/" + target.databaseName() + ".sql", "outbox_message",
        "Outboxer's schema");
    // The inbox's script, where outbox-inbox ships one for the database (its Flyway V1 is its plain DDL).
    String inbox = target.databaseName().equals("sqlite") ? "META-INF/outboxer/inbox/ddl/sqlite.sql"
        : "META-INF/outboxer/inbox/flyway/" + target.databaseName() + "/V1__outboxer_inbox.sql";
    if (Thread.currentThread().getContextClassLoader().getResource(inbox) != null) {
      create(target, inbox, "outbox_inbox", "the inbox's tables");
    }
    return created;
  }

  private static boolean create(JdbcTarget target, String resource, String table, String what) {
    try (Connection connection = target.connect()) {
      if (hasTable(connection, table)) {
        return false;
      }
      connection.setAutoCommit(true);
      try (Statement statement = connection.createStatement()) {
        for (String sql : SqlScripts.statements(script(resource))) {
          statement.execute(sql);
        }
      }
      return true;
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create " + what + " from " + resource + " at " + target.url()
          + ": " + e.getMessage(), e);
    }
  }

  private static boolean hasTable(Connection connection, String name) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    String table = meta.storesUpperCaseIdentifiers() ? name.toUpperCase(java.util.Locale.ROOT) : name;
    try (ResultSet rows = meta.getTables(connection.getCatalog(), connection.getSchema(), table, null)) {
      return rows.next();
    }
  }

  private static String script(String resource) {
    try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path: the test needs outbox-cdi (Outboxer's"
            + " implementation) as a dependency, next to outbox-testing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("Could not read " + resource, e);
    }
  }
}
