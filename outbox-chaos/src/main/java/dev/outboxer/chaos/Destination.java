package dev.outboxer.chaos;

import dev.outboxer.spi.SqlScripts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The destination database: what arrived, when, from whom, and the fault log, all stamped by one
 * sequence ({@code chaos_clock}) so that deliveries and faults can be put in one order.
 *
 * <ul>
 *   <li>{@code chaos_fence}: per (outbox, partition) the highest fencing token accepted so far;</li>
 *   <li>{@code chaos_delivery}: every delivery attempt of the table relay (ACCEPTED, REFUSED by
 *       the fence, or FAILED on purpose), and every arrival a broker consumer saw (ACCEPTED);</li>
 *   <li>{@code chaos_event}: every fault, injected by the orchestrator or by a relay.</li>
 * </ul>
 *
 * A delivery takes the fence row's lock, compares, stamps and inserts in one local transaction of
 * the destination (not the worker's JTA transaction), so that deliveries to one partition are
 * stamped in the order they were accepted.
 */
final class Destination {

  static final String ACCEPTED = "ACCEPTED";
  static final String REFUSED = "REFUSED";
  static final String FAILED = "FAILED";
  /** An arrival the consumer's inbox dropped as a copy: it did not reach the handler. */
  static final String DROPPED = "DROPPED";

  private final Databases databases;

  Destination(Databases databases) {
    this.databases = databases;
  }

  /** Creates the destination database if needed and empties it, with a fence row per partition. */
  void reset(String outbox, int partitions) throws SQLException {
    databases.createDestinationDatabase();
    try (Connection connection = databases.destination("chaos-setup"); Statement statement = connection.createStatement()) {
      for (String table : List.of("chaos_fence", "chaos_delivery", "chaos_event")) {
        statement.execute("DROP TABLE IF EXISTS " + table);
      }
      statement.execute("DROP SEQUENCE IF EXISTS chaos_clock");
      // One value at a time, in allocation order (PostgreSQL: no per-session cache).
      statement.execute(databases.postgres() ? "CREATE SEQUENCE chaos_clock START WITH 1 CACHE 1"
          : "CREATE SEQUENCE chaos_clock START WITH 1 NOCACHE");
      String engine = databases.postgres() ? "" : " ENGINE=InnoDB";
      statement.execute("CREATE TABLE chaos_fence (outbox VARCHAR(100) NOT NULL, partition_no INTEGER NOT NULL,"
          + " token BIGINT NOT NULL, PRIMARY KEY (outbox, partition_no))" + engine);
      statement.execute("CREATE TABLE chaos_delivery (ts BIGINT NOT NULL PRIMARY KEY, message_id BIGINT NOT NULL,"
          + " group_key VARCHAR(100), partition_no INTEGER NOT NULL, token BIGINT NOT NULL, worker VARCHAR(60) NOT NULL,"
          + " batch_id VARCHAR(100) NOT NULL, batch_start BIGINT NOT NULL, batch_start_ms BIGINT NOT NULL,"
          + " outcome VARCHAR(8) NOT NULL,"
          + " detail VARCHAR(300))" + engine);
      statement.execute("CREATE TABLE chaos_event (ts BIGINT NOT NULL PRIMARY KEY, at_ms BIGINT NOT NULL,"
          + " kind VARCHAR(30) NOT NULL, target VARCHAR(60) NOT NULL, detail VARCHAR(300))" + engine);
      try (PreparedStatement fence = connection.prepareStatement(
          "INSERT INTO chaos_fence (outbox, partition_no, token) VALUES (?, ?, 0)")) {
        for (int partition = 0; partition < partitions; partition++) {
          fence.setString(1, outbox);
          fence.setInt(2, partition);
          fence.executeUpdate();
        }
      }
    }
  }

  /**
   * Drops and creates the inbox's tables in the destination database (the consumer's database),
   * from the DDL script {@code outbox-inbox} ships.
   */
  void resetInbox() throws SQLException {
    String script = "META-INF/outboxer/inbox/flyway/" + (databases.postgres() ? "postgresql" : "mariadb")
        + "/V1__outboxer_inbox.sql";
    String ddl;
    try (var in = Destination.class.getClassLoader().getResourceAsStream(script)) {
      if (in == null) {
        throw new IllegalStateException("The inbox script " + script + " is not on the class path: outbox-inbox is"
            + " a dependency of outbox-chaos");
      }
      ddl = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("Cannot read the inbox script " + script, e);
    }
    try (Connection connection = databases.destination("chaos-setup");
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS outbox_inbox");
      statement.execute("DROP TABLE IF EXISTS outbox_inbox_message");
      for (String sql : SqlScripts.statements(ddl)) {
        statement.execute(sql);
      }
    }
  }

  /** The outcome of one fenced delivery. */
  record Outcome(boolean accepted, long highestToken) {}

  /**
   * Delivers one record through the fence: refused when {@code fenced} and a higher token was
   * already accepted for the partition; otherwise accepted (and the fence raised to the token).
   * Either way the attempt is recorded.
   */
  Outcome deliver(Connection connection, String outbox, int partition, long token, long messageId, String groupKey,
      String worker, String batchId, long batchStart, long batchStartMs, boolean fenced) throws SQLException {
    connection.setAutoCommit(false);
    try {
      long highest;
      try (PreparedStatement lock = connection.prepareStatement(
          "SELECT token FROM chaos_fence WHERE outbox = ? AND partition_no = ? FOR UPDATE")) {
        lock.setString(1, outbox);
        lock.setInt(2, partition);
        try (ResultSet row = lock.executeQuery()) {
          if (!row.next()) {
            throw new IllegalStateException("The destination has no fence row for outbox '" + outbox + "', partition "
                + partition + ": the run was set up for fewer partitions than the workers use");
          }
          highest = row.getLong(1);
        }
      }
      boolean accepted = !fenced || token >= highest;
      if (accepted && token > highest) {
        try (PreparedStatement raise = connection.prepareStatement(
            "UPDATE chaos_fence SET token = ? WHERE outbox = ? AND partition_no = ?")) {
          raise.setLong(1, token);
          raise.setString(2, outbox);
          raise.setInt(3, partition);
          raise.executeUpdate();
        }
      }
      insert(connection, messageId, groupKey, partition, token, worker, batchId, batchStart, batchStartMs,
          accepted ? ACCEPTED : REFUSED,
          accepted ? null : "token " + token + " < " + highest);
      connection.commit();
      return new Outcome(accepted, Math.max(highest, token));
    } catch (SQLException | RuntimeException e) {
      try {
        connection.rollback();
      } catch (SQLException ignored) {
        e.addSuppressed(ignored);
      }
      throw e;
    }
  }

  /** Records an attempt that did not reach the fence (a failure the relay injected). */
  void attempt(Connection connection, long messageId, String groupKey, int partition, long token, String worker,
      String batchId, long batchStart, long batchStartMs, String outcome, String detail) throws SQLException {
    connection.setAutoCommit(true);
    insert(connection, messageId, groupKey, partition, token, worker, batchId, batchStart, batchStartMs, outcome, detail);
  }

  /** Records a consumer's arrival in the caller's transaction (autocommit as the caller set it), sent at {@code sentAtMs}. */
  void record(Connection connection, long messageId, String groupKey, int partition, long token, String worker,
      String batchId, long sentAtMs, String outcome, String detail) throws SQLException {
    insert(connection, messageId, groupKey, partition, token, worker, batchId, 0, sentAtMs, outcome, detail);
  }

  /** A reading of the clock, e.g. when a batch reaches the relay. */
  long now(Connection connection) throws SQLException {
    connection.setAutoCommit(true);
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT " + databases.nextValue("chaos_clock"))) {
      row.next();
      return row.getLong(1);
    }
  }

  private void insert(Connection connection, long messageId, String groupKey, int partition, long token, String worker,
      String batchId, long batchStart, long batchStartMs, String outcome, String detail) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO chaos_delivery (ts, message_id, group_key,"
        + " partition_no, token, worker, batch_id, batch_start, batch_start_ms, outcome, detail) VALUES ("
        + databases.nextValue("chaos_clock") + ", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setLong(1, messageId);
      insert.setString(2, groupKey);
      insert.setInt(3, partition);
      insert.setLong(4, token);
      insert.setString(5, worker);
      insert.setString(6, batchId);
      insert.setLong(7, batchStart);
      insert.setLong(8, batchStartMs);
      insert.setString(9, outcome);
      insert.setString(10, detail == null ? null : shorten(detail));
      insert.executeUpdate();
    }
  }

  /** Logs a fault, stamped by the same clock as the deliveries. */
  void event(Connection connection, String kind, String target, String detail) throws SQLException {
    connection.setAutoCommit(true);
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO chaos_event (ts, at_ms, kind, target,"
        + " detail) VALUES (" + databases.nextValue("chaos_clock") + ", ?, ?, ?, ?)")) {
      insert.setLong(1, System.currentTimeMillis());
      insert.setString(2, kind);
      insert.setString(3, target);
      insert.setString(4, detail == null ? null : shorten(detail));
      insert.executeUpdate();
    }
  }

  /** The workers among the last {@code limit} delivery attempts: those most likely inside a batch right now. */
  Set<String> recentWorkers(Connection connection, int limit) throws SQLException {
    connection.setAutoCommit(true);
    Set<String> workers = new HashSet<>();
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT worker FROM chaos_delivery ORDER BY ts DESC LIMIT " + limit);
        ResultSet rows = query.executeQuery()) {
      while (rows.next()) {
        workers.add(rows.getString(1));
      }
    }
    return workers;
  }

  /** A relay hang that started: when, and in which worker. */
  record Hang(long ts, String worker) {}

  /** The relay hangs logged after {@code afterTs}, in order. */
  List<Hang> hangsSince(Connection connection, long afterTs) throws SQLException {
    connection.setAutoCommit(true);
    List<Hang> hangs = new java.util.ArrayList<>();
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT ts, target FROM chaos_event WHERE kind = 'relay-hang' AND ts > ? ORDER BY ts")) {
      query.setLong(1, afterTs);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          hangs.add(new Hang(rows.getLong(1), rows.getString(2)));
        }
      }
    }
    return hangs;
  }

  private static String shorten(String text) {
    return text.length() <= 300 ? text : text.substring(0, 297) + "...";
  }
}
