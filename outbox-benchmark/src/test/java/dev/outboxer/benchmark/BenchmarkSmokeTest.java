package dev.outboxer.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One tiny round of every row (the {@code smoke} profile: backlogs of a few hundred messages, a
 * handful of latency samples, a 2,000-message drain in the 256 MB child JVM). It asserts
 * correctness, never speed: every measurement ran without error, and every drain relayed every
 * message it should have, exactly once and, for Outboxer and raw, in order per group (the {@link
 * DrainProbe} of each drain checks that and turns a violation into an error).
 */
class BenchmarkSmokeTest {

  @Test
  void every_row_runs_and_every_drain_relays_each_message_exactly_once_on_postgresql() throws Exception {
    assertSmokeRun(TestDatabase.POSTGRESQL);
  }

  @Test
  void every_row_runs_and_every_drain_relays_each_message_exactly_once_on_mariadb() throws Exception {
    assertSmokeRun(TestDatabase.MARIADB);
  }

  private static void assertSmokeRun(TestDatabase database) throws Exception {
    database.assumeAvailable();
    Properties properties = new Properties();
    properties.putAll(System.getProperties());
    properties.setProperty("bench.profile", "smoke");
    properties.setProperty("bench.db", database.configValue());
    properties.remove("bench.rows");
    BenchSettings settings = BenchSettings.from(properties);
    Benchmark.quietLogging();
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    Benchmark.Run run;
    try (PrintStream out = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
      run = Benchmark.run(settings, out);
    }
    String log = progress.toString(StandardCharsets.UTF_8) + "\n" + run.markdown();
    Results results = run.results();

    assertThat(results.allErrors()).as(log).isEmpty();
    for (Results.Metric metric : results.metrics()) {
      for (Contender contender : expectedContenders(metric)) {
        assertThat(results.values(metric.key(), contender)).as(metric.label() + " / " + contender.label() + "\n" + log)
            .hasSize(1);
        assertThat(results.isPartial(metric.key(), contender)).as("partial: " + metric.label() + " / "
            + contender.label() + "\n" + log).isFalse();
      }
    }
    assertThat(results.metrics()).extracting(Results.Metric::key)
        .contains("drain.p1", "drain.p1.plain", "drain.p4", "drain.p4.plain", "drain.scale", "growth.200", "growth.400", "growth.ratio",
            "publish.1.sync", "publish.4.sync", "latency.local.p50", "latency.plain.p50", "latency.remote.p99", "poison.rate",
            "poison.relative", "contention.drain.p99", "contention.idle.p99", "contention.ratio", "contention.rolledback");
    if (database == TestDatabase.POSTGRESQL) {
      assertThat(results.metrics()).extracting(Results.Metric::key).contains("publish.1.async", "publish.4.async");
    }
    assertThat(results.lines()).as(log).hasSize(1);
    assertThat(results.lines().values().iterator().next()).as(log)
        .startsWith("finished: a fresh Outboxer node in a child JVM with -Xmx256m relayed 2,000 of 2,000 messages");
    assertThat(run.markdown()).contains("| what | raw | Outboxer | gruelbox | Outboxer / raw |");
  }

  /** Raw has no second node (no remote latency) and no failure handling (no poison row); row 8 is Outboxer's own. */
  private static Set<Contender> expectedContenders(Results.Metric metric) {
    if (metric.key().startsWith("contention.") || metric.key().startsWith("latency.plain.")) {
      // Outboxer's own paths: the worker's transaction JTA or plain is not a choice the others have.
      return EnumSet.of(Contender.OUTBOXER);
    }
    if (metric.key().endsWith(".plain")) {
      // The drain through a relay outside the worker's transaction: Outboxer's, beside the same round's raw drain.
      return EnumSet.of(Contender.RAW, Contender.OUTBOXER);
    }
    if (metric.key().startsWith("latency.remote.") || metric.key().startsWith("poison.")) {
      return EnumSet.of(Contender.OUTBOXER, Contender.GRUELBOX);
    }
    return EnumSet.allOf(Contender.class);
  }
}
