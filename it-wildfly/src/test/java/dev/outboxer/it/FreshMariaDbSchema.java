package dev.outboxer.it;

import dev.outboxer.spi.SqlScripts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link PreparedPostgresSchema} for MariaDB: before a test class deploys, creates the test database
 * ({@code outboxer.mariadb.database}) if missing, drops the sample's and Outboxer's tables in it and
 * creates them again, Outboxer's from the script it ships ({@code META-INF/outboxer/ddl/mariadb.sql})
 * and the sample's from {@code mariadb/orders.sql} of this module. The sample's SchemaSetup then finds
 * both tables and leaves them alone: its own script is PostgreSQL's and H2's identity syntax, which
 * MariaDB does not accept. Register it before {@code ArquillianExtension}; client side only.
 */
public class FreshMariaDbSchema implements BeforeAllCallback {

  private static final String[] DROP = {
    "DROP TABLE IF EXISTS purchase_order, outbox_message, outbox_partition, outbox_rules, outbox_group_lock",
    "DROP SEQUENCE IF EXISTS outbox_message_seq, outbox_fencing_seq"
  };

  @Override
  public void beforeAll(ExtensionContext context) throws SQLException {
    if (!Boolean.getBoolean("outboxer.it.client")) {
      return;
    }
    String database = System.getProperty("outboxer.mariadb.database", "outboxer_it");
    if (!database.matches("[A-Za-z0-9_]+")) {
      throw new IllegalArgumentException("outboxer.mariadb.database=" + database + ": letters, digits and _ only");
    }
    String server = "jdbc:mariadb://" + System.getProperty("outboxer.mariadb.host", "127.0.0.1") + ":"
        + System.getProperty("outboxer.mariadb.port", "3306") + "/";
    Properties properties = new Properties();
    properties.setProperty("user", System.getProperty("outboxer.mariadb.user", "root"));
    properties.setProperty("connectTimeout", "5000");
    try (Connection connection = DriverManager.getConnection(server, properties);
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE IF NOT EXISTS " + database);
      statement.execute("USE " + database);
      // A transaction left prepared by a killed server would hold its locks for this long, not forever.
      statement.execute("SET SESSION lock_wait_timeout = 20");
      for (String sql : DROP) {
        statement.execute(sql);
      }
      for (String script : new String[] {resource("META-INF/outboxer/ddl/mariadb.sql"), resource("mariadb/orders.sql")}) {
        for (String sql : SqlScripts.statements(script)) {
          statement.execute(sql);
        }
      }
    } catch (SQLException e) {
      throw new SQLException("Could not prepare the tables in " + server + database + " before "
          + context.getDisplayName() + ": " + e.getMessage(), e);
    }
  }

  private static String resource(String path) {
    try (InputStream in = FreshMariaDbSchema.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is not on the test class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
