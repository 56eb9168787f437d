package dev.outboxer.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * The side-by-side benchmark: Outboxer, a raw JDBC loop doing the same SQL work, and gruelbox
 * transaction-outbox, in one process on one database, rounds interleaving the contenders. Prints
 * a Markdown table (median, min-max, ratio to raw) and writes it to {@code bench.output}
 * (default {@code target/benchmark-results.md}).
 *
 * <p>It drops and recreates Outboxer's and gruelbox's tables in the database it is pointed at
 * ({@code outboxer.test.<db>.url}, as Outboxer's tests): never point it at a database in use.
 *
 * <p>Settings: {@code -Dbench.profile=quick|full}, {@code -Dbench.db=postgresql|mariadb}, {@code
 * -Dbench.rounds=3}, {@code -Dbench.rows=1,2,...}; see {@link BenchSettings} for the rest.
 */
public final class Benchmark {

  /**
   * gruelbox logs every task that throws at WARNING (with its stack trace) from its transaction
   * manager, which the poison row does on purpose; its own results are counted by the benchmark.
   * Held here: java.util.logging keeps only weak references to loggers, and their levels.
   */
  private static final Logger GRUELBOX_LOG = Logger.getLogger("com.gruelbox.transactionoutbox");

  private Benchmark() {}

  /** A finished run. */
  record Run(Results results, String markdown) {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    BenchSettings settings;
    try {
      settings = BenchSettings.from(System.getProperties());
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      throw e;
    }
    Run run = run(settings, System.out);
    System.out.println();
    System.out.println(run.markdown());
    Path output = Path.of(System.getProperty("bench.output", "target/benchmark-results.md"));
    Files.createDirectories(output.toAbsolutePath().getParent());
    Files.writeString(output, run.markdown(), StandardCharsets.UTF_8);
    System.out.println("Written to " + output.toAbsolutePath());
    List<String> errors = run.results().allErrors();
    if (!errors.isEmpty()) {
      throw new IllegalStateException(errors.size() + " measurement(s) failed, first: " + errors.get(0));
    }
  }

  /** Runs every selected row for every round, then row 7 once, and renders the table. */
  static Run run(BenchSettings settings, PrintStream progress) throws Exception {
    String loadBefore = Environment.loadAverage();
    String started = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    long startNanos = System.nanoTime();
    Results results = new Results();
    progress.printf(Locale.ROOT, "Outboxer benchmark, %s profile on %s, %d round(s); load average %s%n", settings.profile(),
        settings.database(), settings.rounds(), loadBefore);
    String database;
    try (OutboxerNodes nodes = new OutboxerNodes(settings);
        GruelboxContender gruelbox = new GruelboxContender(settings)) {
      database = Environment.database(nodes.raw());
      progress.printf(Locale.ROOT, "Set up in %.1f s: schemas, publish-only node, RawJdbc's rows checked against"
          + " Outboxer's%n", (System.nanoTime() - startNanos) / 1e9);
      for (String outbox : List.of(OutboxerNodes.ONE_PARTITION, OutboxerNodes.FOUR_PARTITIONS)) {
        if (!nodes.templateMismatches(outbox).isEmpty()) {
          results.note("RawJdbc's rows differ from Outboxer's in outbox " + outbox + ": raw publishing fails and"
              + " backlogs are published instead of bulk-inserted. Adapt RawJdbc. " + nodes.templateMismatches(outbox));
        }
      }
      Rounds rounds = new Rounds(settings, results, progress, new RawContender(nodes), new OutboxerContender(nodes),
          gruelbox);
      for (int round = 1; round <= settings.rounds(); round++) {
        rounds.run(round);
      }
      if (settings.runs(Row.MEMORY)) {
        rounds.memory(nodes);
      }
      nodes.raw().truncate();
    }
    double minutes = (System.nanoTime() - startNanos) / 60e9;
    Report.Header header = new Report.Header(
        "Outboxer benchmark: " + settings.profile() + " profile, " + settings.database(),
        facts(settings, started, minutes, loadBefore, Environment.loadAverage(), database));
    return new Run(results, Report.markdown(header, results, settings.rounds(), settings.maxDrain().toSeconds()));
  }

  private static List<String> facts(BenchSettings settings, String started, double minutes, String loadBefore,
      String loadAfter, String database) {
    List<String> facts = new ArrayList<>();
    facts.add(String.format(Locale.ROOT, "%s, %.1f minutes; %d round(s), in each the contenders in turn: raw, Outboxer,"
        + " gruelbox", started, minutes, settings.rounds()));
    facts.add("load average (1, 5, 15 min) before " + loadBefore + ", after " + loadAfter);
    facts.add("JVM: " + Environment.jvm());
    facts.add("database: " + database);
    facts.add("Outboxer at " + Environment.outboxerCommit() + "; gruelbox transactionoutbox-core "
        + gruelboxVersion());
    String fills = settings.bulkFillAbove() == 0
        ? "every backlog filled by a bulk insert of rows verified equal to Outboxer's"
        : String.format(Locale.ROOT, "backlogs above %,d filled by a bulk insert of rows verified equal to Outboxer's,"
            + " smaller ones by Outboxer's publish-only node", settings.bulkFillAbove());
    facts.add(String.format(Locale.ROOT, "%,d group keys, batch size %d, a relay (gruelbox: a task) that does nothing and"
        + " confirms every message; %s", settings.groups(), settings.batchSize(), fills));
    facts.add("drain rate: messages / time from the first batch handed over to the last commit; a drain stops after "
        + settings.maxDrain().toSeconds() + " s (bench.max-drain-seconds)");
    return facts;
  }

  /** From {@code benchmark.properties}, which Maven fills in from the pom. */
  private static String gruelboxVersion() {
    try (java.io.InputStream in = Benchmark.class.getResourceAsStream("/benchmark.properties")) {
      java.util.Properties properties = new java.util.Properties();
      if (in != null) {
        properties.load(in);
      }
      return properties.getProperty("gruelbox.version", "(unknown)");
    } catch (IOException e) {
      return "(unknown)";
    }
  }

  /**
   * Keeps the output to results: warnings and errors only (the start-up banners of Weld,
   * Hibernate and Narayana and gruelbox's per-task lines are INFO). {@code -Dbench.verbose=true}
   * keeps everything.
   */
  static void quietLogging() {
    if (System.getProperty("org.jboss.logging.provider") == null) {
      System.setProperty("org.jboss.logging.provider", "jdk");
    }
    if (Boolean.getBoolean("bench.verbose")) {
      return;
    }
    GRUELBOX_LOG.setLevel(Level.SEVERE);
    Logger root = LogManager.getLogManager().getLogger("");
    root.setLevel(Level.WARNING);
    for (java.util.logging.Handler handler : root.getHandlers()) {
      handler.setLevel(Level.WARNING);
    }
  }
}
