package dev.outboxer.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Drops the sample's and Outboxer's tables in the test database before a test class deploys, so
 * that every deployment starts from the schema its SchemaSetup creates: no rules, messages or
 * orders of an earlier class. The database ({@code outboxer_it}) is the tests' own: created here if
 * missing, and nothing but the sample's and Outboxer's tables is ever dropped. Register it before {@code ArquillianExtension}, which deploys in its own
 * {@code beforeAll}. Runs on the client only (failsafe sets {@code outboxer.it.client}); inside the
 * server, where JUnit runs the class again, it does nothing.
 */
public class FreshPostgresSchema implements BeforeAllCallback {

  private static final String[] DROP = {
    "DROP TABLE IF EXISTS purchase_order, outbox_message, outbox_partition, outbox_rules, outbox_group_lock",
    "DROP SEQUENCE IF EXISTS outbox_message_seq, outbox_fencing_seq"
  };

  /** Runs after the tables were dropped, on the same connection (autocommit). */
  protected void afterDrop(Statement statement) throws SQLException {}

  private static void createDatabaseIfMissing(Properties properties) throws SQLException {
    String database = System.getProperty("outboxer.pg.database", "outboxer_it");
    String server = "jdbc:postgresql://" + System.getProperty("outboxer.pg.host", "127.0.0.1") + ":"
        + System.getProperty("outboxer.pg.port", "5432") + "/postgres";
    try (Connection connection = DriverManager.getConnection(server, properties);
        Statement statement = connection.createStatement();
        var exists = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
      if (!exists.next() && database.matches("[A-Za-z0-9_]+")) {
        try (Statement create = connection.createStatement()) {
          create.execute("CREATE DATABASE " + database);
        }
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws SQLException {
    if (!Boolean.getBoolean("outboxer.it.client")) {
      return;
    }
    String url = "jdbc:postgresql://" + System.getProperty("outboxer.pg.host", "127.0.0.1") + ":"
        + System.getProperty("outboxer.pg.port", "5432") + "/" + System.getProperty("outboxer.pg.database", "outboxer_it");
    Properties properties = new Properties();
    properties.setProperty("user", System.getProperty("outboxer.pg.user", "postgres"));
    properties.setProperty("connectTimeout", "5");
    createDatabaseIfMissing(properties);
    try (Connection connection = DriverManager.getConnection(url, properties);
        Statement statement = connection.createStatement()) {
      // A prepared transaction left behind by a killed server would hold its locks forever.
      statement.execute("SET lock_timeout = '20s'");
      for (String sql : DROP) {
        statement.execute(sql);
      }
      afterDrop(statement);
    } catch (SQLException e) {
      throw new SQLException("Could not drop the tables in " + url + " before " + context.getDisplayName()
          + ": " + e.getMessage(), e);
    }
  }
}
