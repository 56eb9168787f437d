package dev.outboxer.benchmark;

import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A day in production, compressed: the drain capacity measured first (a fresh node draining a
 * backlog of {@code bench.soak.capacity-backlog} messages on 4 partitions), then publishing at a
 * share of it ({@code bench.soak.load}, default half) for {@code bench.soak.seconds} while a
 * worker node relays, on the same 4-partition outbox. The run is cut into six windows; it passes when
 *
 * <ul>
 *   <li>the p99 latency (just before the publishing commit to the relay) of the messages published
 *       in the last window is at most 1.5 times that of the first;
 *   <li>the message table and its indexes at the end are at most twice their size after the first
 *       window (PostgreSQL: heap and indexes each; MariaDB: the tablespace file);
 *   <li>nothing is lost: after the publishers stop and the outbox drains, every published message
 *       reached the relay; messages that reached it more than once are counted and reported, not
 *       failed (delivery is at least once).
 * </ul>
 *
 * <pre>
 * java ... dev.outboxer.benchmark.Soak    # -Dbench.db=mariadb, -Dbench.soak.seconds=1800,
 *     -Dbench.soak.rate=20000 (msg/s: skips the capacity measurement), -Dbench.soak.load=0.5,
 *     -Dbench.soak.capacity-backlog=100000, -Dbench.soak.threads=4, -Dbench.soak.per-transaction=
 *     (default: rate / 1000, at least 1, so that the publishers commit about 1,000 transactions a second)
 * </pre>
 *
 * <p>What it does not show: a real relay's cost (the relay confirms and sends nothing), more than
 * one worker node, or a day's worth of wall-clock effects (autovacuum's freeze passes, log rotation).
 */
public final class Soak {

  static final String OUTBOX = OutboxerNodes.FOUR_PARTITIONS;
  static final int WINDOWS = 6;
  static final double LATENCY_GROWTH_LIMIT = 1.5;
  static final double SIZE_GROWTH_LIMIT = 2.0;
  private static final Duration FINAL_DRAIN = Duration.ofSeconds(120);

  private Soak() {}

  /** What a soak run is asked to do; every field from a {@code bench.soak.*} property. */
  record Options(Duration duration, Double rate, double load, int capacityBacklog, int threads, Integer perTransaction,
      boolean speedChecks) {

    static Options fromSystemProperties() {
      String rate = System.getProperty("bench.soak.rate");
      String perTransaction = System.getProperty("bench.soak.per-transaction");
      Options options = new Options(Duration.ofSeconds(Long.getLong("bench.soak.seconds", 1800)),
          rate == null || rate.isBlank() ? null : Double.valueOf(rate),
          Double.parseDouble(System.getProperty("bench.soak.load", "0.5")),
          Integer.getInteger("bench.soak.capacity-backlog", 100_000),
          Integer.getInteger("bench.soak.threads", 4),
          perTransaction == null || perTransaction.isBlank() ? null : Integer.valueOf(perTransaction),
          parseChecks(System.getProperty("bench.soak.checks", "all")));
      if (options.duration().toSeconds() < WINDOWS) {
        throw new IllegalArgumentException("bench.soak.seconds=" + options.duration().toSeconds() + ": at least "
            + WINDOWS + " (one second per window)");
      }
      if (options.load() <= 0 || options.load() > 1) {
        throw new IllegalArgumentException("bench.soak.load=" + options.load() + ": a share of the capacity, above 0"
            + " and at most 1");
      }
      if (options.rate() != null && options.rate() <= 0) {
        throw new IllegalArgumentException("bench.soak.rate=" + options.rate() + ": messages per second, above 0");
      }
      if (options.threads() < 1 || options.capacityBacklog() < 1000
          || (options.perTransaction() != null && options.perTransaction() < 1)) {
        throw new IllegalArgumentException("bench.soak.threads (at least 1), bench.soak.capacity-backlog (at least"
            + " 1000) and bench.soak.per-transaction (at least 1) out of range: " + options);
      }
      return options;
    }
  }

  private static boolean parseChecks(String checks) {
    return switch (checks.trim().toLowerCase(Locale.ROOT)) {
      case "all" -> true;
      case "correctness" -> false;
      default -> throw new IllegalArgumentException("bench.soak.checks=" + checks + ": all (latency, sizes, nothing"
          + " lost) or correctness (nothing lost only, for short runs such as CI's)");
    };
  }

  /** The figures of one window: its latencies and the table's size at its end. */
  record Window(int index, float[] latencies, TableSizes sizes, String load) {
    double p50() {
      return TrafficLedger.percentile(latencies, 50);
    }

    double p99() {
      return TrafficLedger.percentile(latencies, 99);
    }

    double max() {
      return latencies.length == 0 ? Double.NaN : latencies[latencies.length - 1];
    }
  }

  /** A run's outcome: the report, and the failed checks (none when it passed). */
  record Outcome(String markdown, List<String> failures) {}

  public static void main(String[] args) throws Exception {
    Benchmark.quietLogging();
    BenchSettings settings = BenchSettings.from(System.getProperties());
    Outcome outcome = run(settings, Options.fromSystemProperties(), System.out);
    System.out.println();
    System.out.println(outcome.markdown());
    Path output = Path.of(System.getProperty("bench.output", "target/benchmark-results.md"))
        .resolveSibling("soak-results-" + settings.database().configValue() + ".md");
    Files.createDirectories(output.toAbsolutePath().getParent());
    Files.writeString(output, outcome.markdown(), StandardCharsets.UTF_8);
    System.out.println("Written to " + output.toAbsolutePath());
    if (!outcome.failures().isEmpty()) {
      throw new IllegalStateException("The soak failed: " + String.join("; ", outcome.failures()));
    }
  }

  static Outcome run(BenchSettings settings, Options options, PrintStream progress) throws Exception {
    TestDatabase database = settings.database();
    String started = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
    String loadBefore = Environment.loadAverage();
    try (OutboxerNodes nodes = new OutboxerNodes(settings)) {
      double capacity = Double.NaN;
      double rate;
      if (options.rate() != null) {
        rate = options.rate();
      } else {
        DrainOutcome drain = new OutboxerContender(nodes).drain(OUTBOX, options.capacityBacklog(), null);
        if (!drain.finished()) {
          throw new IllegalStateException("The capacity drain did not finish: " + drain);
        }
        capacity = drain.rate();
        rate = capacity * options.load();
        progress.printf(Locale.ROOT, "capacity: a fresh node drained %,d messages (4 partitions) at %,.0f msg/s;"
            + " publishing at %,.0f msg/s; load %s%n", options.capacityBacklog(), capacity, rate, Environment.loadAverage());
      }
      // The soak starts from an empty table, not from the capacity drain's dead rows.
      nodes.raw().truncate();
      int perTransaction = options.perTransaction() != null ? options.perTransaction()
          : (int) Math.max(1, Math.round(rate / 1000));
      long windowNanos = options.duration().toNanos() / WINDOWS;
      long base = SteadyTraffic.idBase(database);
      TrafficLedger ledger;
      TableSizes[] sizes = new TableSizes[WINDOWS];
      String[] loads = new String[WINDOWS];
      long lost;
      double achieved;
      long late;
      boolean drained;
      long leftBehind;
      // The workers' sweep finds rows their read position passed (a bug) and relays them late, with a WARNING:
      // a loss the ledger alone would no longer see.
      try (LogCapture workerLog = LogCapture.of("dev.outboxer.cdi.internal.work.BatchProcessor");
          OutboxTestContainer worker = OutboxerNodes.workerNode(settings, OUTBOX)) {
        long start = System.nanoTime();
        ledger = new TrafficLedger(base, start, windowNanos, WINDOWS);
        BenchRelay.plan(OUTBOX, new BenchRelay.Plan(null, null, ledger));
        SteadyTraffic traffic = SteadyTraffic.start(nodes.publisher(true), OUTBOX, settings.groups(), ledger, start,
            rate, options.threads(), perTransaction);
        try {
          for (int w = 0; w < WINDOWS; w++) {
            sleepUntil(start + windowNanos * (w + 1), traffic);
            sizes[w] = TableSizes.read(database);
            loads[w] = Environment.loadAverage();
            float[] sofar = ledger.latencies(w);
            progress.printf(Locale.ROOT, "window %d/%d: %,d published, %,d relayed; p99 so far %.1f ms; %s; load %s%n",
                w + 1, WINDOWS, ledger.publishedCount(), ledger.relayedCount(), TrafficLedger.percentile(sofar, 99),
                sizes[w].describe(database), loads[w]);
          }
        } finally {
          traffic.stop();
        }
        achieved = traffic.achievedRate();
        late = traffic.lateTicks();
        drained = SteadyTraffic.awaitDrained(nodes.raw(), OUTBOX, ledger, FINAL_DRAIN);
        lost = ledger.lostCount();
        leftBehind = workerLog.warnings().stream()
            .filter(warning -> warning.contains("lay below the partition's read position")).count();
      } finally {
        BenchRelay.clear(OUTBOX);
      }
      List<Window> windows = new ArrayList<>();
      for (int w = 0; w < WINDOWS; w++) {
        windows.add(new Window(w, ledger.latencies(w), sizes[w], loads[w]));
      }
      List<String> failures = checks(database, windows, ledger, lost, drained, options.speedChecks());
      if (leftBehind > 0) {
        failures.add(leftBehind + " batch(es) found pending messages below a partition's read position (relayed late by"
            + " the workers' sweep; see their WARNING)");
      }
      String markdown = report(settings, options, started, loadBefore, capacity, rate, achieved, perTransaction, late,
          windows, ledger, lost, failures);
      return new Outcome(markdown, failures);
    }
  }

  private static void sleepUntil(long deadlineNanos, SteadyTraffic traffic) throws InterruptedException {
    long left;
    while ((left = deadlineNanos - System.nanoTime()) > 0) {
      if (traffic.failed()) {
        return; // stop() reports the failure
      }
      Thread.sleep(Math.min(1000, Math.max(1, left / 1_000_000)));
    }
  }

  /**
   * The failed checks. With {@code speedChecks} false only correctness is checked: a run shorter than
   * a few of autovacuum's naps (a minute each by default) cannot show whether cleanup keeps up, and
   * CI runs on a shared machine measure nothing about speed.
   */
  static List<String> checks(TestDatabase database, List<Window> windows, TrafficLedger ledger, long lost,
      boolean drained, boolean speedChecks) {
    List<String> failures = new ArrayList<>();
    if (speedChecks) {
      speedChecks(database, windows, failures);
    }
    if (lost > 0) {
      failures.add(lost + " published message(s) never reached the relay, first: " + ledger.lost(5));
    }
    if (!drained) {
      failures.add("the outbox did not drain within " + FINAL_DRAIN.toSeconds() + " s after the publishers stopped");
    }
    if (ledger.strangers() > 0 || ledger.relayedUnpublished() > 0) {
      failures.add(ledger.strangers() + " arrival(s) of ids from before the run and " + ledger.relayedUnpublished()
          + " of ids whose publishing transaction was not seen to commit");
    }
    return failures;
  }

  private static void speedChecks(TestDatabase database, List<Window> windows, List<String> failures) {
    Window first = windows.get(0);
    Window last = windows.get(windows.size() - 1);
    if (first.latencies().length == 0 || last.latencies().length == 0) {
      failures.add("no latency samples in the first or the last window");
    } else if (last.p99() > LATENCY_GROWTH_LIMIT * first.p99()) {
      failures.add(String.format(Locale.ROOT, "p99 latency grew from %.1f ms (first window) to %.1f ms (last), more"
          + " than %.1f times", first.p99(), last.p99(), LATENCY_GROWTH_LIMIT));
    }
    TableSizes after = first.sizes();
    TableSizes end = last.sizes();
    if (database == TestDatabase.POSTGRESQL) {
      grew(failures, "the heap of outbox_message", after.heapBytes(), end.heapBytes());
      grew(failures, "the indexes of outbox_message", after.indexBytes(), end.indexBytes());
    } else {
      grew(failures, "the tablespace file of outbox_message", after.totalBytes(), end.totalBytes());
    }
  }

  private static void grew(List<String> failures, String what, long afterFirstWindow, long atEnd) {
    if (atEnd > SIZE_GROWTH_LIMIT * afterFirstWindow) {
      failures.add(String.format(Locale.ROOT, "%s grew from %s after the first window to %s at the end, more than %.0f"
          + " times", what, TableSizes.mb(afterFirstWindow), TableSizes.mb(atEnd), SIZE_GROWTH_LIMIT));
    }
  }

  private static String report(BenchSettings settings, Options options, String started, String loadBefore,
      double capacity, double rate, double achieved, int perTransaction, long late, List<Window> windows,
      TrafficLedger ledger, long lost, List<String> failures) {
    TestDatabase database = settings.database();
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "## Soak: %d s on %s, %s%n%n", options.duration().toSeconds(), database,
        started));
    out.append(String.format(Locale.ROOT, "Outboxer %s; %s; %s, %s. Load before: %s, after: %s.%n%n",
        Environment.outboxerCommit(), Environment.jvm(), Environment.database(new RawJdbc(database)),
        TableSizes.cleanupSettings(database), loadBefore, Environment.loadAverage()));
    out.append(String.format(Locale.ROOT, "Capacity %s; target rate %,.0f msg/s (%s), achieved %,.0f msg/s by %d"
            + " publisher threads committing %d message(s) per transaction (%,d late ticks); outbox of 4 partitions,"
            + " batches of %d, %,d groups, one worker node.%n%n",
        Double.isNaN(capacity) ? "not measured" : String.format(Locale.ROOT, "%,.0f msg/s (a %,d-message backlog drained"
            + " by a fresh node)", capacity, options.capacityBacklog()),
        rate, Double.isNaN(capacity) ? "bench.soak.rate" : String.format(Locale.ROOT, "%.0f%% of the capacity",
            options.load() * 100), achieved, options.threads(), perTransaction, late, settings.batchSize(),
        settings.groups()));
    boolean postgres = database == TestDatabase.POSTGRESQL;
    out.append(postgres
        ? "| window | messages | p50 ms | p99 ms | max ms | heap | indexes | total | outbox_partition | dead rows | vacuums | load |\n"
          + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        : "| window | messages | p50 ms | p99 ms | max ms | file | INDEX_LENGTH (estimate) | outbox_partition file | history list | load |\n"
          + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (Window window : windows) {
      TableSizes s = window.sizes();
      out.append(String.format(Locale.ROOT, "| %d | %,d | %.2f | %.2f | %.1f | ", window.index() + 1,
          window.latencies().length, window.p50(), window.p99(), window.max()));
      out.append(postgres
          ? String.format(Locale.ROOT, "%s | %s | %s | %s | %,d | %d | %s |%n", TableSizes.mb(s.heapBytes()),
              TableSizes.mb(s.indexBytes()), TableSizes.mb(s.totalBytes()), TableSizes.mb(s.partitionTableBytes()),
              s.deadRows(), s.vacuums(), window.load())
          : String.format(Locale.ROOT, "%s | %s | %s | %,d | %s |%n", TableSizes.mb(s.totalBytes()),
              TableSizes.mb(s.indexBytes()), TableSizes.mb(s.partitionTableBytes()), s.deadRows(), window.load()));
    }
    Window first = windows.get(0);
    Window last = windows.get(windows.size() - 1);
    out.append(String.format(Locale.ROOT, "%nLatency p99, last window / first: %.2f (limit %.1f). Sizes at the end /"
            + " after the first window: %s (limit %.0f).%n", last.p99() / first.p99(), LATENCY_GROWTH_LIMIT,
        postgres ? String.format(Locale.ROOT, "heap %.2f, indexes %.2f",
            ratio(last.sizes().heapBytes(), first.sizes().heapBytes()),
            ratio(last.sizes().indexBytes(), first.sizes().indexBytes()))
            : String.format(Locale.ROOT, "file %.2f", ratio(last.sizes().totalBytes(), first.sizes().totalBytes())),
        SIZE_GROWTH_LIMIT));
    out.append(String.format(Locale.ROOT, "Published %,d, relayed %,d distinct, lost %,d, duplicates %,d (delivered"
        + " again after a batch rolled back: at least once).%n", ledger.publishedCount(), ledger.relayedCount(), lost,
        ledger.duplicates()));
    out.append(options.speedChecks() ? "" : "\nChecked: correctness only (bench.soak.checks=correctness): latency and"
        + " sizes are reported, not checked.\n");
    out.append(failures.isEmpty() ? "\n**PASS**\n" : "\n**FAIL**: " + String.join("; ", failures) + "\n");
    return out.toString();
  }

  private static double ratio(long value, long base) {
    return base <= 0 ? Double.NaN : (double) value / base;
  }
}
