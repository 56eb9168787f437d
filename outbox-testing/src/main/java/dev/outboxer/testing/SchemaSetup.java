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
 * not there. With plain JDBC before Outboxer starts, because Outboxer reaches the database only in
 * JTA transactions, in which MariaDB refuses DDL.
 */
final class SchemaSetup {

  private SchemaSetup() {}

  /** @return whether the schema was created */
  static boolean createIfMissing(JdbcTarget target) {
    String resource = "META-INF/outboxer/ddl/" + target.databaseName() + ".sql";
    try (Connection connection = target.connect()) {
      if (hasMessageTable(connection)) {
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
      throw new IllegalStateException("Could not create Outboxer's schema from " + resource + " at " + target.url()
          + ": " + e.getMessage(), e);
    }
  }

  private static boolean hasMessageTable(Connection connection) throws SQLException {
    DatabaseMetaData meta = connection.getMetaData();
    String table = meta.storesUpperCaseIdentifiers() ? "OUTBOX_MESSAGE" : "outbox_message";
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
