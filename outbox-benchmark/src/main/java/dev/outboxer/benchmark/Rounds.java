package dev.outboxer.benchmark;

import dev.outboxer.testing.TestDatabase;
import java.io.PrintStream;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of one run: each round runs every selected row, and within a row every contender in
 * turn (raw, Outboxer, gruelbox), so that a slow minute of the machine hits all of them alike.
 * A failing measurement is recorded as an error in its cell and the run goes on.
 */
final class Rounds {

  private final BenchSettings settings;
  private final Results results;
  private final PrintStream progress;
  private final RawContender raw;
  private final OutboxerContender outboxer;
  private final GruelboxContender gruelbox;
  /** Row 8: at most this many publishing transactions, fewer if the drain ends first. */
  private static final int CONTENTION_SAMPLES = 2_000;

  private final String failingGroup;
  /** Values of the current round, for the ratios within a round. */
  private final Map<String, Map<Contender, Double>> round = new HashMap<>();
  private int roundNumber;

  Rounds(BenchSettings settings, Results results, PrintStream progress, RawContender raw, OutboxerContender outboxer,
      GruelboxContender gruelbox) {
    this.settings = settings;
    this.results = results;
    this.progress = progress;
    this.raw = raw;
    this.outboxer = outboxer;
    this.gruelbox = gruelbox;
    this.failingGroup = BenchMessage.groupOf(7, settings.groups());
    declare();
  }

  private void declare() {
    String backlog = count(settings.backlog());
    if (settings.runs(Row.DRAIN_1)) {
      results.metric("drain.p1", "1. drain " + backlog + ", 1 partition", "msg/s");
      results.metric("drain.p1.plain", "1. drain " + backlog + ", 1 partition, relay outside the worker's transaction"
          + " (Kafka, SQS, RabbitMQ; raw: the same round's)", "msg/s");
    }
    if (settings.runs(Row.DRAIN_4)) {
      results.metric("drain.p4", "2. drain " + backlog + ", 4 partitions", "msg/s");
      results.metric("drain.p4.plain", "2. drain " + backlog + ", 4 partitions, relay outside the worker's transaction"
          + " (Kafka, SQS, RabbitMQ; raw: the same round's)", "msg/s");
      if (settings.runs(Row.DRAIN_1)) {
        results.metric("drain.scale", "2. 4 partitions / 1 partition", "x");
      }
    }
    if (settings.runs(Row.GROWTH)) {
      for (int size : settings.growth()) {
        results.metric("growth." + size, "3. drain " + count(size) + ", 1 partition", "msg/s");
      }
      if (settings.growth().size() > 1) {
        results.metric("growth.ratio", "3. rate(" + count(largest()) + ") / rate(" + count(settings.growth().get(0)) + ")",
            "x");
      }
    }
    if (settings.runs(Row.PUBLISH)) {
      for (boolean synchronous : synchronousCommitVariants()) {
        for (int threads : new int[] {1, 4}) {
          results.metric(publishKey(threads, synchronous), "4. publish, " + threads + (threads == 1 ? " thread" : " threads")
              + durability(synchronous), "msg/s");
        }
      }
    }
    if (settings.runs(Row.LATENCY)) {
      results.metric("latency.local.p50", "5. latency on one idle node, p50", "ms");
      results.metric("latency.local.p99", "5. latency on one idle node, p99", "ms");
      results.metric("latency.plain.p50", "5. latency on one idle node, relay outside the worker's transaction"
          + " (Kafka, SQS, RabbitMQ), p50", "ms");
      results.metric("latency.plain.p99", "5. latency on one idle node, relay outside the worker's transaction"
          + " (Kafka, SQS, RabbitMQ), p99", "ms");
      results.metric("latency.remote.p50", "5. latency across two nodes, p50", "ms");
      results.metric("latency.remote.p99", "5. latency across two nodes, p99", "ms");
    }
    if (settings.runs(Row.POISON)) {
      results.metric("poison.rate", "6. poison: drain of the other groups, " + backlog + ", 4 partitions", "msg/s");
      results.metric("poison.relative", "6. poison / clean drain", "x");
    }
    if (settings.runs(Row.PUBLISH_DURING_DRAIN)) {
      String drain = "8. publish (1 message, 1 thread) while a " + backlog + " backlog drains on 4 partitions";
      results.metric("contention.drain.p50", drain + ", p50", "ms");
      results.metric("contention.drain.p99", drain + ", p99", "ms");
      results.metric("contention.idle.p50", "8. the same publish with the table idle, p50", "ms");
      results.metric("contention.idle.p99", "8. the same publish with the table idle, p99", "ms");
      results.metric("contention.ratio", "8. p99 while draining / p99 idle", "x");
      results.metric("contention.rolledback", "8. drain batches confirmed by the relay, then rolled back (deadlocks)",
          "batches");
    }
  }

  void run(int number) {
    roundNumber = number;
    round.clear();
    if (settings.runs(Row.DRAIN_1)) {
      drainRowWithPlain("drain.p1", OutboxerNodes.ONE_PARTITION, settings.backlog());
    }
    if (settings.runs(Row.DRAIN_4)) {
      drainRowWithPlain("drain.p4", OutboxerNodes.FOUR_PARTITIONS, settings.backlog());
      ratio("drain.scale", "drain.p4", "drain.p1");
    }
    if (settings.runs(Row.GROWTH)) {
      for (int size : settings.growth()) {
        drainRow("growth." + size, OutboxerNodes.ONE_PARTITION, size);
      }
      if (settings.growth().size() > 1) {
        ratio("growth.ratio", "growth." + largest(), "growth." + settings.growth().get(0));
      }
    }
    if (settings.runs(Row.PUBLISH)) {
      int messages = settings.publishMessages();
      for (boolean synchronous : synchronousCommitVariants()) {
        for (int threads : new int[] {1, 4}) {
          String key = publishKey(threads, synchronous);
          measure(key, Contender.RAW, () -> raw.publish(threads, synchronous, messages));
          measure(key, Contender.OUTBOXER, () -> outboxer.publish(threads, synchronous, messages));
          measure(key, Contender.GRUELBOX, () -> gruelbox.publish(threads, synchronous, messages));
        }
      }
    }
    if (settings.runs(Row.LATENCY)) {
      latency();
    }
    if (settings.runs(Row.POISON)) {
      poison();
    }
    if (settings.runs(Row.PUBLISH_DURING_DRAIN)) {
      contention();
    }
  }

  /**
   * Row 8, Outboxer only: whether the drain's locks make an unrelated publish wait (MariaDB's gap
   * locks did, for seconds) or deadlock with it. The other contenders have no such interplay to show.
   */
  private void contention() {
    OutboxerContender.Contention contention = attempt("contention.drain.p50", Contender.OUTBOXER,
        () -> outboxer.publishDuringDrain(CONTENTION_SAMPLES));
    if (contention == null) {
      return;
    }
    double drainP99 = Stats.percentile(contention.duringDrain(), 99);
    double idleP99 = Stats.percentile(contention.idle(), 99);
    results.add("contention.drain.p50", Contender.OUTBOXER, Stats.percentile(contention.duringDrain(), 50));
    results.add("contention.drain.p99", Contender.OUTBOXER, drainP99);
    results.add("contention.idle.p50", Contender.OUTBOXER, Stats.percentile(contention.idle(), 50));
    results.add("contention.idle.p99", Contender.OUTBOXER, idleP99);
    results.add("contention.ratio", Contender.OUTBOXER, drainP99 / idleP99);
    results.add("contention.rolledback", Contender.OUTBOXER, contention.drain().rolledBackBatches());
    say("8. publish while draining", Contender.OUTBOXER, String.format(Locale.ROOT, "p50 %.2f / p99 %.2f / max %.2f ms"
        + " over %d transactions during the drain (%,.0f msg/s, %d batches rolled back after the relay confirmed"
        + " them); idle p50 %.2f / p99 %.2f / max %.2f ms", Stats.percentile(contention.duringDrain(), 50), drainP99,
        Stats.max(contention.duringDrain()), contention.duringDrain().size(), contention.drain().rate(),
        contention.drain().rolledBackBatches(), Stats.percentile(contention.idle(), 50), idleP99,
        Stats.max(contention.idle())));
  }

  private void drainRow(String key, String outbox, int backlog) {
    int partitions = OutboxerNodes.partitionsOf(outbox);
    drain(key, Contender.RAW, () -> raw.drain(outbox, backlog));
    drain(key, Contender.OUTBOXER, () -> outboxer.drain(outbox, backlog, null));
    drain(key, Contender.GRUELBOX, () -> gruelbox.drain(partitions, backlog, null));
  }

  /**
   * Rows 1 and 2: raw, Outboxer in the worker's JTA transaction and Outboxer in plain database
   * transactions ({@link PlainBenchRelay}; its line carries the same round's raw drain for the
   * ratio), then gruelbox. The two Outboxer drains take turns going first, round by round, so that
   * neither always runs later on a machine whose load changes.
   */
  private void drainRowWithPlain(String key, String outbox, int backlog) {
    int partitions = OutboxerNodes.partitionsOf(outbox);
    DrainOutcome rawDrain = drain(key, Contender.RAW, () -> raw.drain(outbox, backlog));
    if (rawDrain != null) {
      results.add(key + ".plain", Contender.RAW, rawDrain.rate());
    }
    boolean plainFirst = roundNumber % 2 == 0;
    if (plainFirst) {
      drain(key + ".plain", Contender.OUTBOXER, () -> outboxer.drain(outbox, backlog, null, "bench-plain"));
    }
    drain(key, Contender.OUTBOXER, () -> outboxer.drain(outbox, backlog, null));
    if (!plainFirst) {
      drain(key + ".plain", Contender.OUTBOXER, () -> outboxer.drain(outbox, backlog, null, "bench-plain"));
    }
    drain(key, Contender.GRUELBOX, () -> gruelbox.drain(partitions, backlog, null));
  }

  private void poison() {
    int backlog = settings.backlog();
    for (Contender contender : List.of(Contender.OUTBOXER, Contender.GRUELBOX)) {
      Measurement<DrainOutcome> poisoned = contender == Contender.OUTBOXER
          ? () -> outboxer.drain(OutboxerNodes.FOUR_PARTITIONS, backlog, failingGroup)
          : () -> gruelbox.drain(4, backlog, failingGroup);
      DrainOutcome outcome = drain("poison.rate", contender, poisoned);
      Double clean = round.getOrDefault("drain.p4", Map.of()).get(contender);
      if (clean == null && outcome != null) {
        // Row 2 did not run this round: measure the clean drain here.
        Measurement<DrainOutcome> cleanRun = contender == Contender.OUTBOXER
            ? () -> outboxer.drain(OutboxerNodes.FOUR_PARTITIONS, backlog, null)
            : () -> gruelbox.drain(4, backlog, null);
        DrainOutcome reference = attempt("poison.rate", contender, cleanRun);
        clean = reference == null ? null : reference.rate();
      }
      if (outcome != null && clean != null && clean > 0) {
        results.add("poison.relative", contender, outcome.rate() / clean);
      }
    }
  }

  private void latency() {
    List<Double> floor = attempt("latency.local.p50", Contender.RAW, () -> raw.latency(settings.localLatencySamples()));
    if (floor != null) {
      percentiles("local", Contender.RAW, floor);
    }
    for (Contender contender : List.of(Contender.OUTBOXER, Contender.GRUELBOX)) {
      Latencies latencies = attempt("latency.local.p50", contender, () -> contender == Contender.OUTBOXER
          ? outboxer.latency(settings.localLatencySamples(), settings.remoteLatencySamples())
          : gruelbox.latency(settings.localLatencySamples(), settings.remoteLatencySamples()));
      if (latencies != null) {
        percentiles("local", contender, latencies.local());
        percentiles("remote", contender, latencies.remote());
        if (!latencies.plainLocal().isEmpty()) {
          percentiles("plain", contender, latencies.plainLocal());
        }
      }
    }
  }

  private void percentiles(String where, Contender contender, List<Double> millis) {
    double p50 = Stats.percentile(millis, 50);
    double p99 = Stats.percentile(millis, 99);
    results.add("latency." + where + ".p50", contender, p50);
    results.add("latency." + where + ".p99", contender, p99);
    say("5. latency, " + where, contender, String.format(Locale.ROOT, "p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d"
        + " samples", p50, p99, Stats.max(millis), millis.size()));
  }

  /** Row 7, once per run. */
  void memory(OutboxerNodes nodes) {
    String label = "7. memory, drain " + count(settings.memoryBacklog()) + " in " + MemoryCheck.HEAP;
    try {
      MemoryCheck.Outcome outcome = MemoryCheck.run(nodes);
      results.line(label, outcome.describe());
      progress.println("[memory] " + outcome.describe());
      if (!outcome.finished()) {
        results.note("Row 7: the drain in the 256 MB heap did not finish within bench.memory-max-seconds.");
      }
    } catch (Exception e) {
      results.line(label, "ERROR: " + message(e));
      results.note("Row 7 failed: " + message(e));
      progress.println("[memory] ERROR " + message(e));
    }
  }

  /** Runs a drain, records its rate (marked partial if it ran out of time) and returns it; null on error. */
  private DrainOutcome drain(String key, Contender contender, Measurement<DrainOutcome> measurement) {
    long start = System.nanoTime();
    DrainOutcome outcome = attempt(key, contender, measurement);
    if (outcome == null) {
      return null;
    }
    results.add(key, contender, outcome.rate());
    round.computeIfAbsent(key, k -> new EnumMap<>(Contender.class)).put(contender, outcome.rate());
    String text = String.format(Locale.ROOT, "%,.0f msg/s (%,d in %.2f s; filled in %.1f s, %.1f s in all)",
        outcome.rate(), outcome.committed(), outcome.seconds(), outcome.fillSeconds(), (System.nanoTime() - start) / 1e9);
    if (!outcome.finished()) {
      results.partial(key, contender, String.format(Locale.ROOT, "%,d of %,d in round %d", outcome.committed(),
          outcome.backlog(), roundNumber));
      text += " PARTIAL, out of time";
    }
    say(label(key), contender, text);
    return outcome;
  }

  private void measure(String key, Contender contender, Measurement<Double> measurement) {
    Double value = attempt(key, contender, measurement);
    if (value != null) {
      results.add(key, contender, value);
      say(label(key), contender, Report.number(value, "msg/s") + " msg/s");
    }
  }

  private <T> T attempt(String key, Contender contender, Measurement<T> measurement) {
    try {
      return measurement.run();
    } catch (Exception | Error e) {
      results.error(key, contender, message(e));
      say(label(key), contender, "ERROR " + message(e));
      return null;
    }
  }

  private void ratio(String key, String numerator, String denominator) {
    for (Contender contender : Contender.values()) {
      Double top = round.getOrDefault(numerator, Map.of()).get(contender);
      Double bottom = round.getOrDefault(denominator, Map.of()).get(contender);
      if (top != null && bottom != null && bottom > 0) {
        results.add(key, contender, top / bottom);
      }
    }
  }

  private void say(String what, Contender contender, String text) {
    progress.printf(Locale.ROOT, "[round %d/%d] %s | %s: %s%n", roundNumber, settings.rounds(), what, contender.label(),
        text);
    progress.flush();
  }

  private String label(String key) {
    return results.metrics().stream().filter(metric -> metric.key().equals(key)).findFirst()
        .map(Results.Metric::label).orElse(key);
  }

  private List<Boolean> synchronousCommitVariants() {
    return settings.database() == TestDatabase.POSTGRESQL ? List.of(true, false) : List.of(true);
  }

  private String durability(boolean synchronous) {
    if (settings.database() != TestDatabase.POSTGRESQL) {
      return " (server's commit durability)";
    }
    return synchronous ? ", synchronous_commit on" : ", synchronous_commit off";
  }

  private static String publishKey(int threads, boolean synchronous) {
    return "publish." + threads + "." + (synchronous ? "sync" : "async");
  }

  private int largest() {
    return settings.growth().get(settings.growth().size() - 1);
  }

  static String count(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  static String message(Throwable e) {
    StringBuilder text = new StringBuilder(e.toString());
    for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
      text.append(" <- ").append(cause);
    }
    return text.toString();
  }

  /** One measurement of one contender. */
  @FunctionalInterface
  interface Measurement<T> {
    T run() throws Exception;
  }
}
