package dev.outboxer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The databases Outboxer is tested against. PostgreSQL and MariaDB are the local servers (override
 * with {@code outboxer.test.<name>.url|user|password}); H2 and Derby run in memory. Schemas are
 * created from the DDL scripts Outboxer ships, never from JPA schema generation.
 */
public enum TestDatabase {
  H2("jdbc:h2:mem:outboxer;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000", "sa", "", "org.h2.jdbcx.JdbcDataSource"),
  POSTGRESQL("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", "org.postgresql.xa.PGXADataSource"),
  MARIADB("jdbc:mariadb://127.0.0.1:3306/test", "root", "", "org.mariadb.jdbc.MariaDbDataSource"),
  DERBY("jdbc:derby:memory:outboxer;create=true", "app", "", "org.apache.derby.jdbc.EmbeddedXADataSource");

  /** Set by .ci/run: a database that cannot be reached fails the tests instead of skipping them. */
  public static final String REQUIRE_PROPERTY = "outboxer.test.require-databases";

  private static final String[] TABLES = {"outbox_message", "outbox_partition", "outbox_rules", "outbox_group_lock", "test_order"};

  private final String defaultUrl;
  private final String defaultUser;
  private final String defaultPassword;
  private final String xaDataSourceClass;

  TestDatabase(String url, String user, String password, String xaDataSourceClass) {
    this.defaultUrl = url;
    this.defaultUser = user;
    this.defaultPassword = password;
    this.xaDataSourceClass = xaDataSourceClass;
  }

  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  public String url() {
    return System.getProperty("outboxer.test." + configValue() + ".url", defaultUrl);
  }

  public String user() {
    return System.getProperty("outboxer.test." + configValue() + ".user", defaultUser);
  }

  public String password() {
    return System.getProperty("outboxer.test." + configValue() + ".password", defaultPassword);
  }

  public String xaDataSourceClass() {
    return xaDataSourceClass;
  }

  public Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user());
    properties.setProperty("password", password());
    if (this == POSTGRESQL) {
      properties.setProperty("connectTimeout", "3");
    } else if (this == MARIADB) {
      properties.setProperty("connectTimeout", "3000");
    }
    return DriverManager.getConnection(url(), properties);
  }

  /** Skips the test if the database cannot be reached, or fails it when {@value #REQUIRE_PROPERTY} is true. */
  public void assumeAvailable() {
    try (Connection ignored = connect()) {
      // reachable
    } catch (SQLException e) {
      String message = this + " is not reachable at " + url() + ": " + e.getMessage();
      if (Boolean.getBoolean(REQUIRE_PROPERTY)) {
        Assertions.fail(message + " (" + REQUIRE_PROPERTY + "=true)");
      }
      Assumptions.abort(message);
    }
  }

  /** Drops Outboxer's tables and the test table, then runs Outboxer's DDL script and creates the test table. */
  public void resetSchema() {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      for (String table : TABLES) {
        executeIgnoringAbsence(statement, this == DERBY ? "DROP TABLE " + table : "DROP TABLE IF EXISTS " + table);
      }
      executeIgnoringAbsence(statement, this == DERBY ? "DROP SEQUENCE outbox_message_seq RESTRICT"
          : "DROP SEQUENCE IF EXISTS outbox_message_seq");
      for (String sql : statements(ddl())) {
        statement.execute(sql);
      }
      statement.execute("CREATE TABLE test_order (id BIGINT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException("Could not reset the schema of " + this + " at " + url(), e);
    }
  }

  /** The DDL script Outboxer ships for this database, from the classpath. */
  public String ddl() {
    String resource = "META-INF/outboxer/ddl/" + configValue() + ".sql";
    try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Splits a script into statements: comment lines dropped, statements end with a semicolon at the end of a line. */
  public static List<String> statements(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        String sql = current.toString().strip();
        statements.add(sql.substring(0, sql.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      statements.add(current.toString().strip());
    }
    return statements;
  }

  private static void executeIgnoringAbsence(Statement statement, String sql) {
    try {
      statement.execute(sql);
    } catch (SQLException absent) {
      // Derby has no IF EXISTS: the object was not there.
    }
  }
}
