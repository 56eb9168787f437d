package dev.outboxer.testing;

import dev.outboxer.spi.SqlScripts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The databases Outboxer is tested against. PostgreSQL and MariaDB are the local servers, in a
 * database of the tests' own ({@code outboxer_test_<module>}, created on first use; override with {@code
 * outboxer.test.<name>.url|user|password}); H2 runs in memory; SQLite is a file of the same name in
 * the module's {@code target} directory, in WAL mode with a busy timeout, as its documentation
 * recommends. Schemas are created from the DDL scripts Outboxer ships, never from JPA schema
 * generation, and only the tables Outboxer and the tests create are ever dropped.
 */
public enum TestDatabase {
  H2("jdbc:h2:mem:outboxer;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000", "sa", "", "org.h2.jdbcx.JdbcDataSource"),
  POSTGRESQL("jdbc:postgresql://127.0.0.1:5432/" + ownDatabase(), "postgres", "",
      "dev.outboxer.postgresql.RecoverablePGXADataSource"),
  MARIADB("jdbc:mariadb://127.0.0.1:3306/" + ownDatabase(), "root", "", "org.mariadb.jdbc.MariaDbDataSource"),
  /**
   * SQLite has no XA: the pool connects through the JDBC driver, and its connections take part in a
   * JTA transaction as its only resource (one-phase commit). Writers wait up to 60s for the write
   * lock (busy_timeout), longer than any batch of the tests holds it.
   */
  SQLITE("jdbc:sqlite:" + java.nio.file.Path.of("target", ownDatabase() + ".sqlite").toAbsolutePath()
      + "?journal_mode=WAL&busy_timeout=60000", "", "", "org.sqlite.JDBC");

  /** Set by .ci/run: a database that cannot be reached fails the tests instead of skipping them. */
  public static final String REQUIRE_PROPERTY = "outboxer.test.require-databases";

  /** Outboxer's tables and the tests' own: the only ones ever dropped. */
  private static final String[] TABLES = {"outbox_message", "outbox_partition", "outbox_rules", "outbox_group_lock",
      "outbox_sequence", "test_order"};
  private static final String[] SEQUENCES = {"outbox_message_seq", "outbox_fencing_seq"};
  private static final java.util.Set<TestDatabase> CREATED = java.util.concurrent.ConcurrentHashMap.newKeySet();

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

  /**
   * The tests' own database: {@code outboxer_test_<module>}, named after the directory the tests run
   * in (Maven runs a module's tests in the module's directory), so that two modules' tests never
   * share tables, even when they run at the same time. The environment variable {@code
   * OUTBOXER_TEST_DATABASE_PREFIX} replaces {@code outboxer_test}, for two checkouts on one host.
   */
  private static String ownDatabase() {
    String directory = String.valueOf(java.nio.file.Path.of("").toAbsolutePath().getFileName());
    String module = directory.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
    // Two checkouts testing on one machine at once set OUTBOXER_TEST_DATABASE_PREFIX apart.
    String prefix = System.getenv().getOrDefault("OUTBOXER_TEST_DATABASE_PREFIX", "outboxer_test");
    return module.isEmpty() || module.equals("null") ? prefix : prefix + "_" + module;
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

  /** The class the tests' pool connects with: the database's XADataSource, or SQLite's JDBC driver. */
  public String xaDataSourceClass() {
    return xaDataSourceClass;
  }

  public Connection connect() throws SQLException {
    ensureDatabase();
    return connectTo(url());
  }

  private Connection connectTo(String url) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user());
    properties.setProperty("password", password());
    if (this == POSTGRESQL) {
      properties.setProperty("connectTimeout", "3");
    } else if (this == MARIADB) {
      properties.setProperty("connectTimeout", "3000");
    }
    return DriverManager.getConnection(url, properties);
  }

  /**
   * Creates the tests' database on the server if it is not there (PostgreSQL, MariaDB), once per
   * JVM: the tests never touch a database they did not create.
   */
  private void ensureDatabase() throws SQLException {
    if (this == H2 || CREATED.contains(this)) {
      return;
    }
    if (this == SQLITE) {
      // The driver creates the file; only its directory has to be there.
      try {
        java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
      } catch (IOException e) {
        throw new SQLException("Could not create the directory of the SQLite test database", e);
      }
      CREATED.add(this);
      return;
    }
    String url = url();
    int slash = url.lastIndexOf('/');
    int end = url.indexOf('?', slash);
    String name = url.substring(slash + 1, end < 0 ? url.length() : end);
    if (!name.matches("[A-Za-z0-9_]+")) {
      CREATED.add(this);
      return;
    }
    String serverUrl = url.substring(0, slash + 1) + (this == POSTGRESQL ? "postgres" : "");
    try (Connection server = connectTo(serverUrl); Statement statement = server.createStatement()) {
      if (this == POSTGRESQL) {
        try (java.sql.ResultSet rows = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
          if (!rows.next()) {
            try {
              statement.execute("CREATE DATABASE " + name);
            } catch (SQLException createdMeanwhile) {
              // Another test JVM created it at the same time.
            }
          }
        }
      } else {
        statement.execute("CREATE DATABASE IF NOT EXISTS " + name);
      }
    }
    CREATED.add(this);
  }

  /**
   * A connection to another database of the same MariaDB server ({@code <own>_neighbour}, created
   * if missing): for what the server shares between its databases, such as {@code GET_LOCK} names.
   */
  public Connection connectToNeighbour() throws SQLException {
    if (this != MARIADB) {
      throw new UnsupportedOperationException("a neighbour database on " + this);
    }
    ensureDatabase();
    String url = url();
    int slash = url.lastIndexOf('/');
    int end = url.indexOf('?', slash);
    String neighbour = url.substring(slash + 1, end < 0 ? url.length() : end) + "_neighbour";
    try (Connection server = connectTo(url.substring(0, slash + 1)); Statement statement = server.createStatement()) {
      statement.execute("CREATE DATABASE IF NOT EXISTS " + neighbour);
    }
    return connectTo(url.substring(0, slash + 1) + neighbour + (end < 0 ? "" : url.substring(end)));
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
        executeIgnoringAbsence(statement, "DROP TABLE IF EXISTS " + table);
      }
      for (String sequence : SEQUENCES) {
        executeIgnoringAbsence(statement, "DROP SEQUENCE IF EXISTS " + sequence);
      }
      for (String sql : SqlScripts.statements(ddl())) {
        statement.execute(sql);
      }
      statement.execute("CREATE TABLE test_order (id BIGINT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException("Could not reset the schema of " + this + " at " + url(), e);
    }
  }

  /** Drops Outboxer's tables and sequences (and the test table), leaving an empty database for schema tests. */
  public void dropSchema() {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      for (String table : TABLES) {
        executeIgnoringAbsence(statement, "DROP TABLE IF EXISTS " + table);
      }
      for (String sequence : SEQUENCES) {
        executeIgnoringAbsence(statement, "DROP SEQUENCE IF EXISTS " + sequence);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not drop the schema of " + this + " at " + url(), e);
    }
  }

  /** Runs statements with autocommit (schema changes in tests). */
  public void execute(String... sql) {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not run " + String.join("; ", sql) + " on " + this, e);
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

  private static void executeIgnoringAbsence(Statement statement, String sql) {
    try {
      statement.execute(sql);
    } catch (SQLException absent) {
      // Not there: nothing to drop.
    }
  }
}
