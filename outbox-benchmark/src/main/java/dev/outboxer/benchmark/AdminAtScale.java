package dev.outboxer.benchmark;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;

/**
 * The "admin at 1M" row: the operators' bulk calls on a million dead messages, on a node whose
 * worker relays while they run, with a publisher publishing one message every 20 ms meanwhile.
 * Prints, per call, its time, what it changed, the publishes' p50 / max (ms) during it, and how
 * long the drain of what it revived took after it returned. Checks the counts: a call that changed
 * fewer messages than there were fails the run.
 *
 * <pre>
 * java ... dev.outboxer.benchmark.AdminAtScale    # -Dbench.db=mariadb, -Dbench.admin.dead=1000000,
 *     -Dbench.admin.operations=retryDead,discardAll,retryDeadGroup, -Dbench.admin.groups=1000,
 *     -Dbench.admin.serialize-writes=false, -Dbench.admin.worker=none (no drain: times the call alone),
 *     -Dbench.admin.analyze=true (PostgreSQL: fresh planner statistics after the fill)
 * </pre>
 */
public final class AdminAtScale {

  private static final String OUTBOX = "operated";

  private AdminAtScale() {}

  public static void main(String[] args) throws Exception {
    TestDatabase database = "mariadb".equalsIgnoreCase(System.getProperty("bench.db", "postgresql"))
        ? TestDatabase.MARIADB : TestDatabase.POSTGRESQL;
    int dead = Integer.getInteger("bench.admin.dead", 1_000_000);
    String operations = System.getProperty("bench.admin.operations", "retryDead,discardAll,retryDeadGroup");
    // Its own database (named as the tests' are), Outboxer's tables dropped and created afresh.
    database.resetSchema();
    try (OutboxTestContainer node = OutboxTestContainer.builder(JdbcTarget.of(database)).viaDataSource()
        .config("outbox.worker", System.getProperty("bench.admin.worker", "executor"))
        .config("outbox." + OUTBOX + ".relay", "bench")
        .config("outbox." + OUTBOX + ".serialize-writes", System.getProperty("bench.admin.serialize-writes", "false"))
        .beans(BenchRelay.class)
        .start()) {
      System.out.printf(Locale.ROOT, "admin at %,d dead messages, %s, load %s%n", dead, database,
          Environment.loadAverage());
      for (String operation : operations.split(",")) {
        run(node, database, operation.trim(), dead);
      }
    }
  }

  private static void run(OutboxTestContainer node, TestDatabase database, String operation, int dead)
      throws Exception {
    OutboxAdmin admin = node.select(OutboxAdmin.class);
    Outbox outbox = node.select(Outbox.class);
    long first;
    long fillStarted = System.nanoTime();
    try (Connection connection = database.connect()) {
      first = insertDead(connection, database, dead, "retryDeadGroup".equals(operation) ? 1
          : Integer.getInteger("bench.admin.groups", 1_000));
    }
    double fillSeconds = (System.nanoTime() - fillStarted) / 1e9;
    AtomicBoolean publishing = new AtomicBoolean(true);
    List<Double> publishMillis = new ArrayList<>();
    Thread publisher = new Thread(() -> {
      for (int i = 0; publishing.get(); i++) {
        long started = System.nanoTime();
        int sequence = i;
        try {
          node.inTransaction(() -> outbox.publish(OUTBOX, BenchMessage.of(sequence, 1_000)));
        } catch (Exception e) {
          throw new IllegalStateException("a publish during " + operation + " failed", e);
        }
        synchronized (publishMillis) {
          publishMillis.add((System.nanoTime() - started) / 1e6);
        }
        pause(20);
      }
    }, "admin-bench-publisher");
    publisher.start();
    long started = System.nanoTime();
    int changed = switch (operation) {
      case "retryDead" -> admin.retryDead(OUTBOX);
      case "retryDeadGroup" -> admin.retryDeadGroup(OUTBOX, "g0");
      case "discardAll" -> admin.discardAll(OUTBOX, LongStream.range(first, first + dead).toArray());
      default -> throw new IllegalArgumentException("bench.admin.operations: unknown operation '" + operation
          + "' (retryDead, discardAll, retryDeadGroup)");
    };
    double seconds = (System.nanoTime() - started) / 1e9;
    publishing.set(false);
    publisher.join();
    long drainStarted = System.nanoTime();
    long deadline = drainStarted + 600_000_000_000L;
    long left = 0;
    boolean draining = !"none".equals(System.getProperty("bench.admin.worker", "executor"));
    while (draining && (left = count(database)) > 0 && System.nanoTime() < deadline) {
      pause(200);
    }
    double drainSeconds = (System.nanoTime() - drainStarted) / 1e9;
    List<Double> sorted;
    synchronized (publishMillis) {
      sorted = publishMillis.stream().sorted().toList();
    }
    System.out.printf(Locale.ROOT, "%-15s %,d dead (filled in %.1f s): %s %,d in %.1f s (%,.0f msg/s); %d publishes"
            + " meanwhile, p50 %.1f ms, max %.1f ms; drained %s %.1f s after it returned; load %s%n",
        operation, dead, fillSeconds, operation.startsWith("retry") ? "revived" : "discarded", changed, seconds,
        changed / seconds, sorted.size(), sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2),
        sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1), left == 0 ? "in" : "NOT (" + left + " left) in",
        drainSeconds, Environment.loadAverage());
    if (!draining) {
      // Without a worker the next call's messages would mix with these: start from an empty outbox.
      try (Connection connection = database.connect();
          PreparedStatement statement = connection.prepareStatement("DELETE FROM outbox_message")) {
        statement.executeUpdate();
      }
    }
    if (changed != dead || left != 0) {
      throw new IllegalStateException(operation + " changed " + changed + " of " + dead + " dead messages; "
          + left + " messages left undrained");
    }
  }

  private static long count(TestDatabase database) throws SQLException {
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM outbox_message"
            + " WHERE outbox = ?")) {
      statement.setString(1, OUTBOX);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  /** Dead messages above the sequence's value (which is moved past them), message n of group "g" + n % groups. */
  private static long insertDead(Connection connection, TestDatabase database, int count, int groups)
      throws SQLException {
    boolean postgres = database == TestDatabase.POSTGRESQL;
    long base;
    try (PreparedStatement statement = connection.prepareStatement(postgres
        ? "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM outbox_message_seq"
        : "SELECT NEXT VALUE FOR outbox_message_seq");
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      base = rows.getLong(1);
    }
    String payload = "'{\"sequence\":1}'";
    String insert = postgres
        ? "INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key, message_type, content_type,"
            + " payload, status, attempts, created_at, last_error) SELECT n + " + base + ", ?, 0, n % 100,"
            + " 'g' || (n % ?), 'bench', 'application/json', convert_to(" + payload + ", 'UTF8'), 'DEAD', 1,"
            + " TIMESTAMP '2026-01-01 00:00:00', 'refused' FROM generate_series(1, " + count + ") n"
        : "INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key, message_type, content_type,"
            + " payload, status, attempts, created_at, last_error) SELECT seq + " + base + ", ?, 0, seq % 100,"
            + " CONCAT('g', seq % ?), 'bench', 'application/json', " + payload + ", 'DEAD', 1, '2026-01-01 00:00:00',"
            + " 'refused' FROM seq_1_to_" + count;
    try (PreparedStatement statement = connection.prepareStatement(insert)) {
      statement.setString(1, OUTBOX);
      statement.setInt(2, groups);
      statement.executeUpdate();
    }
    try (PreparedStatement statement = connection.prepareStatement(postgres
        ? "SELECT setval('outbox_message_seq', " + (base + count) + ")"
        : "SELECT SETVAL(outbox_message_seq, " + (base + count) + ")")) {
      statement.executeQuery().close();
    }
    if (postgres && Boolean.parseBoolean(System.getProperty("bench.admin.analyze", "true"))) {
      try (PreparedStatement statement = connection.prepareStatement("ANALYZE outbox_message")) {
        statement.execute();
      }
    }
    return base + 1;
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
