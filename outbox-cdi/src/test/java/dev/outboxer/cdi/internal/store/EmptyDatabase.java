package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * A new, empty database of the test's own on one of the test servers, for tests that must start
 * from nothing (applying a migration tool to a database in which Outboxer's schema does not exist).
 * Its name is {@code <OUTBOXER_TEST_DATABASE_PREFIX>_outbox_cdi_<purpose>} (prefix default {@code
 * outboxer_test}): created by {@link #create}, dropped by {@link #close}, so the test never drops a
 * database it did not create. H2 databases are in memory and shut down on close; SQLite databases
 * are files of that name in {@code target}, deleted on close.
 */
final class EmptyDatabase implements AutoCloseable {

  private final TestDatabase server;
  private final String name;
  private final String url;

  private EmptyDatabase(TestDatabase server, String name, String url) {
    this.server = server;
    this.name = name;
    this.url = url;
  }

  /** Creates the database afresh (dropping the one an earlier, interrupted run of this test left). */
  static EmptyDatabase create(TestDatabase server, String purpose) {
    server.assumeAvailable();
    String prefix = System.getenv().getOrDefault("OUTBOXER_TEST_DATABASE_PREFIX", "outboxer_test");
    String name = (prefix + "_outbox_cdi_" + purpose).toLowerCase(Locale.ROOT);
    if (!name.matches("[a-z0-9_]{1,63}")) {
      throw new IllegalArgumentException("Not a usable test database name: " + name);
    }
    if (server == TestDatabase.H2) {
      return new EmptyDatabase(server, name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
    }
    if (server == TestDatabase.SQLITE) {
      // A file of its own in target, beside the test kit's; settings as the test kit's (WAL, a busy timeout).
      deleteSqliteFiles(name);
      return new EmptyDatabase(server, name, "jdbc:sqlite:" + sqliteFile(name) + "?journal_mode=WAL&busy_timeout=60000");
    }
    try (Connection admin = connect(server, serverUrl(server)); Statement statement = admin.createStatement()) {
      statement.execute(dropStatement(server, name));
      statement.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create the test database " + name + " on " + server, e);
    }
    return new EmptyDatabase(server, name, baseUrl(server) + name);
  }

  String url() {
    return url;
  }

  String user() {
    return server.user();
  }

  String password() {
    return server.password();
  }

  Connection connect() throws SQLException {
    Connection connection = connect(server, url);
    connection.setAutoCommit(true);
    return connection;
  }

  /** Runs statements one by one with autocommit (DDL). */
  void execute(List<String> statements) {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not run a statement on " + name + ": " + e.getMessage(), e);
    }
  }

  long count(String query) {
    try (Connection connection = connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(query)) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not run " + query + " on " + name, e);
    }
  }

  /** The schema's objects, as {@link Catalogue} reads them, leaving out the named tables (a tool's own). */
  Catalogue catalogue(String... ignoredTables) {
    try (Connection connection = connect()) {
      return Catalogue.read(connection, server, List.of(ignoredTables));
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read the catalogue of " + name, e);
    }
  }

  @Override
  public void close() {
    if (server == TestDatabase.SQLITE) {
      deleteSqliteFiles(name);
      return;
    }
    String sql = server == TestDatabase.H2 ? "SHUTDOWN" : dropStatement(server, name);
    try (Connection connection = server == TestDatabase.H2 ? connect() : connect(server, serverUrl(server));
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not drop the test database " + name + " on " + server, e);
    }
  }

  private static java.nio.file.Path sqliteFile(String name) {
    return java.nio.file.Path.of("target", name + ".sqlite").toAbsolutePath();
  }

  /** The database file and the files WAL mode keeps beside it. */
  private static void deleteSqliteFiles(String name) {
    try {
      java.nio.file.Files.createDirectories(sqliteFile(name).getParent());
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(sqliteFile(name) + suffix));
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("Could not delete the SQLite test database " + sqliteFile(name), e);
    }
  }

  private static String dropStatement(TestDatabase server, String name) {
    // FORCE: a pool that a failed test left open must not keep the database.
    return server == TestDatabase.POSTGRESQL ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"
        : "DROP DATABASE IF EXISTS " + name;
  }

  /** The server's URL up to the database name, from the test kit's URL for this server. */
  private static String baseUrl(TestDatabase server) {
    String url = server.url();
    return url.substring(0, url.lastIndexOf('/') + 1);
  }

  /** A database every server has, to create and drop the test's own from. */
  private static String serverUrl(TestDatabase server) {
    return baseUrl(server) + (server == TestDatabase.POSTGRESQL ? "postgres" : "");
  }

  private static Connection connect(TestDatabase server, String url) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", server.user());
    properties.setProperty("password", server.password());
    return DriverManager.getConnection(url, properties);
  }
}
