package dev.outboxer.benchmark;

import dev.outboxer.OpenTransaction;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The "held horizon" row (PostgreSQL): what a transaction left open elsewhere in the database
 * costs the outbox. Two phases on the 4-partition outbox, each from an empty table: steady traffic
 * ({@code bench.horizon.rate} msg/s for {@code bench.horizon.traffic-seconds}, one message per
 * transaction, a worker node relaying; its latency p50 / p99 from just before the publishing commit
 * to the relay), then the drain of a {@code bench.horizon.backlog}-message backlog by a fresh node.
 * The first phase runs clean; during the second another session holds a snapshot (a {@code
 * REPEATABLE READ} transaction that ran a {@code SELECT} on the outbox table and stays open, as a
 * report or a forgotten {@code psql} does), so PostgreSQL can remove none of the rows the workers
 * delete. Goals: the held drain at least 0.7 times the clean one, the held p99 at most twice the clean
 * one. It also prints what Outboxer says meanwhile: {@code OutboxAdmin.oldestOpenTransaction()} (what
 * the gauge {@code outbox.oldest.transaction.age} and the health check {@code
 * outbox-long-transaction} read) and the workers' WARNINGs naming the session.
 *
 * <pre>
 * java ... dev.outboxer.benchmark.HeldHorizon    # -Dbench.horizon.traffic-seconds=600,
 *     -Dbench.horizon.rate=1000, -Dbench.horizon.backlog=100000
 * </pre>
 *
 * <p>It reports; it fails only when a message is lost or the outbox does not drain, never on speed.
 */
public final class HeldHorizon {

  static final String OUTBOX = OutboxerNodes.FOUR_PARTITIONS;
  static final double DRAIN_GOAL = 0.7;
  static final double LATENCY_GOAL = 2.0;
  private static final Duration FINAL_DRAIN = Duration.ofSeconds(120);

  private HeldHorizon() {}

  /** One phase's figures. */
  record Phase(String name, long published, double achievedRate, double p50, double p99, double drainRate,
      long duplicates, TableSizes afterTraffic, TableSizes afterDrain) {}

  public static void main(String[] args) throws Exception {
    Benchmark.quietLogging();
    BenchSettings settings = BenchSettings.from(System.getProperties());
    if (settings.database() != TestDatabase.POSTGRESQL) {
      throw new IllegalArgumentException("bench.db=" + settings.database().configValue() + ": the held horizon is"
          + " PostgreSQL's (MariaDB keeps old versions in its undo log, not in the table)");
    }
    Duration traffic = Duration.ofSeconds(Long.getLong("bench.horizon.traffic-seconds", 600));
    double rate = Double.parseDouble(System.getProperty("bench.horizon.rate", "1000"));
    int backlog = Integer.getInteger("bench.horizon.backlog", 100_000);
    String markdown = run(settings, traffic, rate, backlog, System.out);
    System.out.println();
    System.out.println(markdown);
    Path output = Path.of(System.getProperty("bench.output", "target/benchmark-results.md"))
        .resolveSibling("held-horizon-results.md");
    Files.createDirectories(output.toAbsolutePath().getParent());
    Files.writeString(output, markdown, StandardCharsets.UTF_8);
    System.out.println("Written to " + output.toAbsolutePath());
  }

  static String run(BenchSettings settings, Duration traffic, double rate, int backlog, PrintStream progress)
      throws Exception {
    String started = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    String loadBefore = Environment.loadAverage();
    TestDatabase database = settings.database();
    WarningCounter warnings = WarningCounter.install();
    List<String> said = new ArrayList<>();
    try (OutboxerNodes nodes = new OutboxerNodes(settings)) {
      nodes.raw().truncate();
      Phase clean = phase("clean", nodes, traffic, rate, backlog, progress, null);
      nodes.raw().truncate();
      Phase held;
      try (Connection report = database.connect(); Statement statement = report.createStatement()) {
        report.setAutoCommit(false);
        report.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        statement.execute("SET application_name = 'held-horizon-report'");
        try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM outbox_message")) {
          rows.next();
        }
        held = phase("held", nodes, traffic, rate, backlog, progress, said);
        report.rollback();
      }
      String markdown = report(settings, traffic, rate, backlog, started, loadBefore, clean, held, said,
          warnings.count());
      return markdown;
    } finally {
      warnings.remove();
    }
  }

  /** Steady traffic, then a backlog's drain; {@code said} collects what Outboxer reports about open transactions. */
  private static Phase phase(String name, OutboxerNodes nodes, Duration traffic, double rate, int backlog,
      PrintStream progress, List<String> said) throws Exception {
    BenchSettings settings = nodes.settings();
    long base = SteadyTraffic.idBase(settings.database());
    TrafficLedger ledger;
    double achieved;
    TableSizes afterTraffic;
    try (OutboxTestContainer worker = OutboxerNodes.workerNode(settings, OUTBOX)) {
      long start = System.nanoTime();
      ledger = new TrafficLedger(base, start, Long.MAX_VALUE, 1);
      BenchRelay.plan(OUTBOX, new BenchRelay.Plan(null, null, ledger));
      SteadyTraffic publishing = SteadyTraffic.start(nodes.publisher(true), OUTBOX, settings.groups(), ledger, start,
          rate, 1, 1);
      try {
        long end = start + traffic.toNanos();
        long nextLook = start + Duration.ofSeconds(75).toNanos();
        while (System.nanoTime() < end && !publishing.failed()) {
          Thread.sleep(Math.min(1000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
          if (said != null && System.nanoTime() > nextLook) {
            said.add(describe(worker.select(OutboxAdmin.class).oldestOpenTransaction(),
                (System.nanoTime() - start) / 1_000_000_000));
            nextLook = Long.MAX_VALUE;
          }
        }
      } finally {
        publishing.stop();
      }
      achieved = publishing.achievedRate();
      if (!SteadyTraffic.awaitDrained(nodes.raw(), OUTBOX, ledger, FINAL_DRAIN)) {
        throw new IllegalStateException(name + ": the outbox did not drain within " + FINAL_DRAIN.toSeconds()
            + " s after the traffic stopped; " + ledger.lostCount() + " message(s) not relayed");
      }
      afterTraffic = TableSizes.read(settings.database());
    } finally {
      BenchRelay.clear(OUTBOX);
    }
    float[] latencies = ledger.latencies(0);
    progress.printf(Locale.ROOT, "%s: traffic %,d messages at %,.0f msg/s, p50 %.2f ms, p99 %.2f ms; %s; load %s%n",
        name, ledger.publishedCount(), achieved, TrafficLedger.percentile(latencies, 50),
        TrafficLedger.percentile(latencies, 99), afterTraffic.describe(settings.database()), Environment.loadAverage());
    long first = SteadyTraffic.idBase(settings.database()) + 1;
    nodes.raw().bulkInsert(nodes.template(OUTBOX), first, backlog, settings.groups());
    DrainOutcome drain = OutboxerContender.drainFilled(settings, nodes.raw(), OUTBOX, backlog, null,
        settings.maxDrain().plus(FINAL_DRAIN));
    if (!drain.finished()) {
      throw new IllegalStateException(name + ": the drain of " + backlog + " messages did not finish: " + drain);
    }
    TableSizes afterDrain = TableSizes.read(settings.database());
    progress.printf(Locale.ROOT, "%s: drained %,d messages at %,.0f msg/s; %s; load %s%n", name, backlog, drain.rate(),
        afterDrain.describe(settings.database()), Environment.loadAverage());
    return new Phase(name, ledger.publishedCount(), achieved, TrafficLedger.percentile(latencies, 50),
        TrafficLedger.percentile(latencies, 99), drain.rate(), ledger.duplicates(), afterTraffic, afterDrain);
  }

  private static String describe(Optional<OpenTransaction> oldest, long atSecond) {
    return oldest.map(t -> String.format(Locale.ROOT, "after %d s of traffic, OutboxAdmin.oldestOpenTransaction():"
        + " pid %d, application '%s', state '%s', open for %d s", atSecond, t.pid(), t.application(), t.state(),
        t.age().toSeconds())).orElse("after " + atSecond + " s of traffic, OutboxAdmin.oldestOpenTransaction(): none");
  }

  private static String report(BenchSettings settings, Duration traffic, double rate, int backlog, String started,
      String loadBefore, Phase clean, Phase held, List<String> said, int warnings) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "## Held horizon: PostgreSQL, %s%n%n", started));
    out.append(String.format(Locale.ROOT, "Outboxer %s; %s; %s, %s. Load before: %s, after: %s.%n%n",
        Environment.outboxerCommit(), Environment.jvm(), Environment.database(new RawJdbc(settings.database())),
        TableSizes.cleanupSettings(settings.database()), loadBefore, Environment.loadAverage()));
    out.append(String.format(Locale.ROOT, "Per phase: %d s of traffic at %,.0f msg/s (one message per transaction,"
        + " 4 partitions, one worker node), then a fresh node drains a %,d-message backlog. Held: a REPEATABLE READ"
        + " transaction that ran SELECT count(*) FROM outbox_message stays open through the whole phase.%n%n",
        traffic.toSeconds(), rate, backlog));
    out.append("| phase | traffic msg/s | latency p50 ms | p99 ms | drain msg/s | dead rows after traffic | after drain"
        + " | heap after drain | indexes after drain | outbox_partition after drain |\n"
        + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (Phase phase : List.of(clean, held)) {
      out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %,.0f | %,d | %,d | %s | %s | %s |%n",
          phase.name(), phase.achievedRate(), phase.p50(), phase.p99(), phase.drainRate(),
          phase.afterTraffic().deadRows(), phase.afterDrain().deadRows(), TableSizes.mb(phase.afterDrain().heapBytes()),
          TableSizes.mb(phase.afterDrain().indexBytes()), TableSizes.mb(phase.afterDrain().partitionTableBytes())));
    }
    double drainRatio = held.drainRate() / clean.drainRate();
    double latencyRatio = held.p99() / clean.p99();
    out.append(String.format(Locale.ROOT, "%nDrain held / clean: %.2f (goal at least %.1f: %s). Latency p99 held /"
            + " clean: %.2f (goal at most %.1f: %s). Duplicates: %d clean, %d held.%n", drainRatio, DRAIN_GOAL,
        drainRatio >= DRAIN_GOAL ? "met" : "not met", latencyRatio, LATENCY_GOAL,
        latencyRatio <= LATENCY_GOAL ? "met" : "not met", clean.duplicates(), held.duplicates()));
    out.append(String.format(Locale.ROOT, "%nWhat Outboxer said while the snapshot was held: %s; %d WARNING(s) from the"
        + " workers naming the session.%n", said.isEmpty() ? "nothing asked" : String.join("; ", said), warnings));
    return out.toString();
  }

  /** Counts the workers' WARNINGs about a long transaction (logged by LongTransactionWarnings under BatchProcessor). */
  private static final class WarningCounter extends Handler {
    private static final Logger WORKERS = Logger.getLogger("dev.outboxer.cdi.internal.work.BatchProcessor");
    private final AtomicInteger count = new AtomicInteger();

    static WarningCounter install() {
      WarningCounter counter = new WarningCounter();
      counter.setLevel(Level.WARNING);
      WORKERS.addHandler(counter);
      return counter;
    }

    int count() {
      return count.get();
    }

    void remove() {
      WORKERS.removeHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.WARNING.intValue() && record.getMessage() != null
          && record.getMessage().contains("a transaction has been open")) {
        count.incrementAndGet();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
