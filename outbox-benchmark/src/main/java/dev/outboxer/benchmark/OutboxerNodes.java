package dev.outboxer.benchmark;

import dev.outboxer.Outbox;
import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Outboxer's nodes and backlogs, shared by the Outboxer and the raw contender: a long-lived
 * publish-only node ({@code outbox.worker=none}) with the outboxes {@code p1} (1 partition) and
 * {@code p4} (4 partitions), a second one whose connections commit with {@code
 * synchronous_commit=off} (PostgreSQL, made on first use), fresh worker nodes on demand, and the
 * templates from which {@link RawJdbc} writes rows like Outboxer's.
 *
 * <p>At start it drops and recreates Outboxer's tables in the benchmark's database.
 */
final class OutboxerNodes implements AutoCloseable {

  static final String ONE_PARTITION = "p1";
  static final String FOUR_PARTITIONS = "p4";
  private static final int MESSAGES_PER_FILL_TRANSACTION = 1_000;

  private final BenchSettings settings;
  private final RawJdbc raw;
  private final Jsonb jsonb = JsonbBuilder.create();
  private final OutboxTestContainer publisher;
  private OutboxTestContainer asyncCommitPublisher;
  private final Map<String, RawJdbc.Template> templates;
  /** Why rows written by {@link RawJdbc} would not equal Outboxer's, per outbox; empty lists when they do. */
  private final Map<String, List<String>> templateMismatches;

  OutboxerNodes(BenchSettings settings) throws Exception {
    this.settings = settings;
    this.raw = new RawJdbc(settings.database());
    // Outboxer's tables, new for the run; the nodes write through the data source, without JPA.
    settings.database().resetSchema();
    this.publisher = start(OutboxTestContainer.builder(JdbcTarget.of(settings.database())).viaDataSource(), "none");
    List<String> mismatchesP1 = List.of();
    List<String> mismatchesP4 = List.of();
    RawJdbc.Template p1;
    RawJdbc.Template p4;
    try {
      p1 = learn(ONE_PARTITION);
      mismatchesP1 = verify(p1);
      p4 = learn(FOUR_PARTITIONS);
      mismatchesP4 = verify(p4);
    } catch (Exception | Error e) {
      publisher.close();
      throw e;
    }
    this.templates = Map.of(ONE_PARTITION, p1, FOUR_PARTITIONS, p4);
    this.templateMismatches = Map.of(ONE_PARTITION, mismatchesP1, FOUR_PARTITIONS, mismatchesP4);
  }

  RawJdbc raw() {
    return raw;
  }

  BenchSettings settings() {
    return settings;
  }

  static int partitionsOf(String outbox) {
    return outbox.equals(ONE_PARTITION) ? 1 : 4;
  }

  /** The publish-only node; with {@code synchronousCommit=false} one whose connections do not wait for the WAL flush. */
  OutboxTestContainer publisher(boolean synchronousCommit) {
    if (synchronousCommit) {
      return publisher;
    }
    if (settings.database() != TestDatabase.POSTGRESQL) {
      throw new IllegalStateException("synchronous_commit is a PostgreSQL setting; " + settings.database() + " has no"
          + " per-connection equivalent. Indicates a bug in the benchmark.");
    }
    if (asyncCommitPublisher == null) {
      JdbcTarget database = JdbcTarget.of(settings.database());
      asyncCommitPublisher = start(OutboxTestContainer.builder(database.withUrl(asynchronousCommitUrl(database.url())))
          .viaDataSource(), "none");
      requireSynchronousCommit(asyncCommitPublisher, "off");
    }
    return asyncCommitPublisher;
  }

  /** A new node whose workers relay {@code outbox} through {@link BenchRelay}. */
  static OutboxTestContainer workerNode(BenchSettings settings, String outbox) {
    return workerNode(settings, outbox, "bench");
  }

  /**
   * A new node whose workers relay {@code outbox} through the relay named {@code relay}: {@code
   * bench} ({@link BenchRelay}, batches in JTA transactions) or {@code bench-plain} ({@link
   * PlainBenchRelay}, batches in plain database transactions).
   */
  static OutboxTestContainer workerNode(BenchSettings settings, String outbox, String relay) {
    return OutboxTestContainer.builder(JdbcTarget.of(settings.database())).viaDataSource()
        .config("outbox.worker", "executor")
        .config(outboxConfig(settings, outbox, relay))
        .beans(BenchRelay.class, PlainBenchRelay.class)
        .start();
  }

  /** Outboxer's message table, as seen by the publish measurement: emptied, and counted for one outbox. */
  Publishing.Table table(String outbox) {
    return new Publishing.Table() {
      @Override
      public void empty() throws SQLException {
        raw.truncate();
      }

      @Override
      public long count() throws SQLException {
        return raw.count(outbox);
      }
    };
  }

  /** The template of an outbox; fails if rows written from it would differ from Outboxer's. */
  RawJdbc.Template template(String outbox) {
    List<String> mismatches = templateMismatches.get(outbox);
    if (!mismatches.isEmpty()) {
      throw new IllegalStateException("Rows written by RawJdbc differ from the rows Outboxer writes for the same messages"
          + " in outbox '" + outbox + "': " + mismatches + ". The schema or the codec changed: adapt RawJdbc (its column"
          + " list and PER_MESSAGE columns) until they match.");
    }
    return templates.get(outbox);
  }

  List<String> templateMismatches(String outbox) {
    return templateMismatches.get(outbox);
  }

  /**
   * Empties the table and fills a backlog of {@code count} messages (sequence 0 upwards): through
   * the publish-only node, 1,000 per transaction, or with the verified bulk insert for sizes above
   * {@code bench.bulk-fill-above}; then refreshes the planner statistics. If RawJdbc's rows do not
   * match Outboxer's (the schema changed), it publishes instead of bulk-inserting.
   */
  double fill(String outbox, int count) throws Exception {
    long start = System.nanoTime();
    raw.truncate();
    if (settings.bulkFills(count) && templateMismatches.get(outbox).isEmpty()) {
      raw.bulkInsert(template(outbox), 0, count, settings.groups());
    } else {
      publish(publisher, outbox, 0, count);
    }
    if (Boolean.getBoolean("bench.analyze")) {
      // Off by default: Outboxer's reads must not depend on fresh statistics (autovacuum may be off).
      raw.analyze();
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private void publish(OutboxTestContainer node, String outbox, long first, long count) throws Exception {
    Outbox api = node.select(Outbox.class);
    for (long start = first; start < first + count; start += MESSAGES_PER_FILL_TRANSACTION) {
      long from = start;
      long to = Math.min(first + count, start + MESSAGES_PER_FILL_TRANSACTION);
      node.inTransaction(() -> {
        for (long sequence = from; sequence < to; sequence++) {
          api.publish(outbox, BenchMessage.of(sequence, settings.groups()));
        }
      });
    }
  }

  /** One message of every group, published by Outboxer: the rows RawJdbc copies. */
  private RawJdbc.Template learn(String outbox) throws Exception {
    raw.truncate();
    publish(publisher, outbox, 0, settings.groups());
    return raw.learn(outbox, settings.groups(), this::payload);
  }

  /** Writes the same messages with RawJdbc and compares every column. */
  private List<String> verify(RawJdbc.Template template) throws Exception {
    List<Object[]> published = raw.readAll(template.outbox());
    raw.truncate();
    raw.bulkInsert(template, 0, settings.groups(), settings.groups());
    List<Object[]> bulk = raw.readAll(template.outbox());
    raw.truncate();
    return RawJdbc.Template.mismatches(published, bulk);
  }

  /** The payload Outboxer's default codec (JSON-B) writes for a message. */
  byte[] payload(long sequence) {
    return jsonb.toJson(BenchMessage.of(sequence, settings.groups())).getBytes(StandardCharsets.UTF_8);
  }

  private OutboxTestContainer start(OutboxTestContainer.Builder builder, String worker) {
    return builder
        .config("outbox.worker", worker)
        .config(outboxConfig(settings, ONE_PARTITION))
        .config(outboxConfig(settings, FOUR_PARTITIONS))
        .beans(BenchRelay.class)
        .start();
  }

  private static Map<String, String> outboxConfig(BenchSettings settings, String outbox) {
    return outboxConfig(settings, outbox, "bench");
  }

  private static Map<String, String> outboxConfig(BenchSettings settings, String outbox, String relay) {
    return Map.of(
        "outbox." + outbox + ".relay", relay,
        "outbox." + outbox + ".partitions", String.valueOf(partitionsOf(outbox)),
        "outbox." + outbox + ".batch-size", String.valueOf(settings.batchSize()));
  }

  /**
   * PostgreSQL's JDBC driver passes {@code options} to the server as per-connection settings: only
   * this pool's connections commit without waiting for the WAL flush.
   */
  static String asynchronousCommitUrl(String url) {
    return url + (url.contains("?") ? "&" : "?") + "options=-c%20synchronous_commit%3Doff";
  }

  /** Proves that the node's pooled connections run with the wanted setting. */
  static void requireSynchronousCommit(OutboxTestContainer node, String expected) {
    try (Connection connection = node.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW synchronous_commit")) {
      rows.next();
      String actual = rows.getString(1);
      if (!expected.equals(actual)) {
        throw new IllegalStateException("The pool meant to commit with synchronous_commit=" + expected + " runs with "
            + actual + "; the JDBC driver ignored the options parameter of " + node.target().url());
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read synchronous_commit from the pool", e);
    }
  }

  @Override
  public void close() {
    if (asyncCommitPublisher != null) {
      asyncCommitPublisher.close();
    }
    publisher.close();
    try {
      jsonb.close();
    } catch (Exception ignored) {
      // Yasson holds nothing that outlives the JVM
    }
  }
}
