package dev.outboxer.chaos;

import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * Where the chaos suite keeps its data, and how it cuts a worker off its database.
 *
 * <ul>
 *   <li>the <b>outbox database</b> is the test kit's ({@link TestDatabase#url()}: the module's own,
 *       {@code outboxer_test_outbox_chaos}, or {@code <OUTBOXER_TEST_DATABASE_PREFIX>_outbox_chaos}
 *       when that variable is set; never the shared {@code test}): Outboxer's tables and the
 *       ledger;</li>
 *   <li>the <b>destination database</b> is a second database on the same server, named after the
 *       first with {@code _dest} appended, created on demand: deliveries, fences and fault
 *       events.</li>
 * </ul>
 *
 * Worker connections are identifiable: on PostgreSQL by {@code ApplicationName} (then {@code
 * pg_terminate_backend}); on MariaDB, whose {@code performance_schema} is usually off, by the
 * worker's TCP client ports, read from {@code /proc/<pid>} and matched against {@code
 * information_schema.PROCESSLIST.HOST} (then {@code KILL CONNECTION}).
 */
final class Databases {

  private final TestDatabase database;

  Databases(TestDatabase database) {
    this.database = database;
  }

  TestDatabase database() {
    return database;
  }

  boolean postgres() {
    return database == TestDatabase.POSTGRESQL;
  }

  Connection outbox() throws SQLException {
    return database.connect();
  }

  /**
   * The outbox database for a node's pool and its XA recovery: its connections carry the node's
   * name (PostgreSQL's {@code ApplicationName}), so that {@link #killOutboxConnections} finds them.
   */
  JdbcTarget nodeTarget(String applicationName) {
    JdbcTarget target = JdbcTarget.of(database);
    if (!postgres()) {
      return target;
    }
    String url = target.url();
    return target.withUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName);
  }

  String outboxDatabaseName() {
    String url = database.url();
    String rest = url.substring(url.lastIndexOf('/') + 1);
    int query = rest.indexOf('?');
    return query < 0 ? rest : rest.substring(0, query);
  }

  String destinationDatabaseName() {
    return outboxDatabaseName() + "_dest";
  }

  /** A new plain (non-JTA) connection to the destination database. */
  Connection destination(String applicationName) throws SQLException {
    String url = database.url();
    int slash = url.lastIndexOf('/');
    String rest = url.substring(slash + 1);
    int query = rest.indexOf('?');
    String destUrl = url.substring(0, slash + 1) + destinationDatabaseName() + (query < 0 ? "" : rest.substring(query));
    if (postgres()) {
      destUrl += (destUrl.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }
    Properties properties = new Properties();
    properties.setProperty("user", database.user());
    properties.setProperty("password", database.password());
    return DriverManager.getConnection(destUrl, properties);
  }

  /** Creates the destination database if it does not exist. */
  void createDestinationDatabase() throws SQLException {
    String name = destinationDatabaseName();
    if (!name.matches("[A-Za-z0-9_]+")) {
      throw new IllegalStateException("The destination database name '" + name + "' (from " + database.url()
          + ") is not a plain identifier: point outboxer.test." + database.configValue() + ".url at a database named"
          + " with letters, digits and '_'");
    }
    try (Connection connection = outbox(); Statement statement = connection.createStatement()) {
      if (postgres()) {
        try (ResultSet exists = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
          if (exists.next()) {
            return;
          }
        }
        statement.execute("CREATE DATABASE " + name);
      } else {
        statement.execute("CREATE DATABASE IF NOT EXISTS " + name);
      }
    }
  }

  /** The SQL expression that takes the next value of a sequence. */
  String nextValue(String sequence) {
    return postgres() ? "nextval('" + sequence + "')" : "NEXTVAL(" + sequence + ")";
  }

  /**
   * Ends every connection a worker holds to the outbox database (not those of its relay to the
   * destination), as a database restart, a network cut or an idle-session timeout would.
   *
   * @return how many connections were ended
   */
  int killOutboxConnections(String applicationName, long pid) throws SQLException {
    try (Connection admin = outbox()) {
      if (postgres()) {
        try (PreparedStatement kill = admin.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            + " WHERE application_name = ? AND datname = ?")) {
          kill.setString(1, applicationName);
          kill.setString(2, outboxDatabaseName());
          try (ResultSet killed = kill.executeQuery()) {
            killed.next();
            return killed.getInt(1);
          }
        }
      }
      Set<Integer> ports = clientPorts(pid, 3306);
      List<Long> ids = new ArrayList<>();
      try (PreparedStatement find = admin.prepareStatement(
          "SELECT ID, HOST FROM information_schema.PROCESSLIST WHERE DB = ?")) {
        find.setString(1, outboxDatabaseName());
        try (ResultSet rows = find.executeQuery()) {
          while (rows.next()) {
            String host = rows.getString(2);
            int colon = host == null ? -1 : host.lastIndexOf(':');
            if (colon > 0 && ports.contains(Integer.parseInt(host.substring(colon + 1)))) {
              ids.add(rows.getLong(1));
            }
          }
        }
      }
      int killed = 0;
      try (Statement statement = admin.createStatement()) {
        for (long id : ids) {
          try {
            statement.execute("KILL CONNECTION " + id);
            killed++;
          } catch (SQLException gone) {
            // ended meanwhile
          }
        }
      }
      return killed;
    }
  }

  /** {@code SHOW max_prepared_transactions} on PostgreSQL (XA needs it above 0); -1 elsewhere. */
  int maxPreparedTransactions() throws SQLException {
    if (!postgres()) {
      return -1;
    }
    try (Connection connection = outbox(); Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW max_prepared_transactions")) {
      row.next();
      return Integer.parseInt(row.getString(1));
    }
  }

  /**
   * Rolls back the prepared (in-doubt) transactions of the outbox database left by an earlier run's
   * kill -9 between prepare and commit (PostgreSQL XA); they would hold their locks forever.
   *
   * @return how many there were
   */
  int rollBackOrphanedPreparedTransactions() throws SQLException {
    if (!postgres()) {
      return 0;
    }
    List<String> gids = new ArrayList<>();
    try (Connection connection = outbox(); Statement statement = connection.createStatement()) {
      try (ResultSet rows = statement.executeQuery(
          "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()")) {
        while (rows.next()) {
          gids.add(rows.getString(1));
        }
      }
      for (String gid : gids) {
        statement.execute("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'");
      }
    }
    return gids.size();
  }

  /** The local ports of a process's TCP connections to a server port, from /proc (Linux). */
  static Set<Integer> clientPorts(long pid, int serverPort) {
    Set<String> inodes = new HashSet<>();
    try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      fds.forEach(fd -> {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException closed) {
          // the descriptor was closed meanwhile
        }
      });
    } catch (IOException e) {
      throw new IllegalStateException("Cannot list the sockets of process " + pid + " in /proc: the MariaDB connection"
          + " fault needs Linux and the same user", e);
    }
    Set<Integer> ports = new HashSet<>();
    for (String table : List.of("tcp", "tcp6")) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table))) {
          String[] fields = line.trim().split("\\s+");
          if (fields.length < 10 || !fields[1].contains(":")) {
            continue;
          }
          int remotePort = Integer.parseInt(fields[2].substring(fields[2].indexOf(':') + 1), 16);
          if (remotePort == serverPort && inodes.contains(fields[9])) {
            ports.add(Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1), 16));
          }
        }
      } catch (IOException | RuntimeException unreadable) {
        // no IPv6 table, or a line in another format
      }
    }
    return ports;
  }
}
