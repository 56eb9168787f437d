package dev.outboxer.benchmark;

import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * What one run measures: a profile's defaults ({@code quick}, {@code full}, or the tiny {@code
 * smoke} of the test), each overridable with its own {@code bench.*} system property.
 *
 * @param profile the profile name
 * @param database PostgreSQL or MariaDB
 * @param rounds how often every row runs; contenders interleave within a round
 * @param rows the rows to run
 * @param groups group keys of the backlogs
 * @param batchSize messages per relay batch, for every contender
 * @param backlog the backlog of rows 1, 2 and 6
 * @param growth the backlogs of row 3, smallest first
 * @param bulkFillAbove backlogs larger than this are filled by the verified bulk insert instead of
 *     by Outboxer's publish
 * @param publishMessages messages per variant of row 4
 * @param localLatencySamples samples of row 5 on one node
 * @param remoteLatencySamples samples of row 5 across two nodes
 * @param memoryBacklog the backlog drained in a 256 MB heap (row 7)
 * @param maxDrain how long one drain may take; a contender still draining then reports the rate
 *     of what it drained, marked partial
 * @param maxMemoryDrain how long the drain of row 7 may take
 * @param gruelboxRetry gruelbox's attemptFrequency for the draining instance: when an entry that
 *     a flush took but did not complete (it failed, or was skipped as locked) is due again
 */
record BenchSettings(
    String profile,
    TestDatabase database,
    int rounds,
    Set<Row> rows,
    int groups,
    int batchSize,
    int backlog,
    List<Integer> growth,
    int bulkFillAbove,
    int publishMessages,
    int localLatencySamples,
    int remoteLatencySamples,
    int memoryBacklog,
    Duration maxDrain,
    Duration maxMemoryDrain,
    Duration gruelboxRetry) {

  static final String PREFIX = "bench.";

  BenchSettings {
    growth = List.copyOf(growth);
    rows = Set.copyOf(rows);
    check(rounds >= 1, "rounds", rounds, "at least 1");
    check(groups >= 1, "groups", groups, "at least 1");
    check(batchSize >= 1 && batchSize <= 10_000, "batch-size", batchSize, "from 1 to 10000");
    check(backlog >= groups, "backlog", backlog, "at least bench.groups (" + groups + ")");
    check(!growth.isEmpty() && growth.stream().allMatch(size -> size >= 1), "growth", growth,
        "one or more positive sizes separated by commas");
    check(publishMessages >= 4, "publish-messages", publishMessages, "at least 4 (one per thread)");
    check(localLatencySamples >= 1, "latency-samples", localLatencySamples, "at least 1");
    check(remoteLatencySamples >= 1, "remote-latency-samples", remoteLatencySamples, "at least 1");
    check(memoryBacklog >= 1, "memory-backlog", memoryBacklog, "at least 1");
    check(!maxDrain.isNegative() && !maxDrain.isZero(), "max-drain-seconds", maxDrain.toSeconds(), "at least 1");
    check(!maxMemoryDrain.isNegative() && !maxMemoryDrain.isZero(), "memory-max-seconds", maxMemoryDrain.toSeconds(),
        "at least 1");
    check(!gruelboxRetry.isNegative() && !gruelboxRetry.isZero(), "gruelbox-retry-seconds", gruelboxRetry.toSeconds(),
        "at least 1");
    check(bulkFillAbove >= 0, "bulk-fill-above", bulkFillAbove, "0 (bulk-fill every backlog) or more");
  }

  /** Reads {@code bench.profile} (default quick) and every override from the given properties. */
  static BenchSettings from(Properties properties) {
    String profile = properties.getProperty(PREFIX + "profile", "quick").trim().toLowerCase(Locale.ROOT);
    Defaults d = switch (profile) {
      // quick: every backlog bulk-filled (verified against Outboxer's rows at start), short drains, few samples.
      case "quick" -> new Defaults(3, 1_000, 20_000, "10000,100000", 0, 3_000, 50, 50, 1_000_000, 8, 900, 10);
      case "full" -> new Defaults(3, 1_000, 20_000, "10000,100000,1000000", 100_000, 5_000, 200, 50, 1_000_000, 120,
          1_800, 10);
      // smoke: gruelbox retries skipped entries sooner, so that its stalls on MariaDB do not stretch the test.
      case "smoke" -> new Defaults(1, 20, 300, "200,400", 300, 40, 10, 3, 2_000, 60, 300, 2);
      default -> throw new IllegalArgumentException("bench.profile=" + profile + " is not a profile: use quick (under 10"
          + " minutes), full, or smoke (a tiny correctness round)");
    };
    String db = properties.getProperty(PREFIX + "db", "postgresql").trim().toLowerCase(Locale.ROOT);
    TestDatabase database = switch (db) {
      case "postgresql", "postgres" -> TestDatabase.POSTGRESQL;
      case "mariadb" -> TestDatabase.MARIADB;
      default -> throw new IllegalArgumentException("bench.db=" + db + " is not supported: use postgresql or mariadb");
    };
    return new BenchSettings(profile, database,
        intValue(properties, "rounds", d.rounds()),
        Row.parse(properties.getProperty(PREFIX + "rows")),
        intValue(properties, "groups", d.groups()),
        intValue(properties, "batch-size", 100),
        intValue(properties, "backlog", d.backlog()),
        sizes(properties.getProperty(PREFIX + "growth", d.growth())),
        intValue(properties, "bulk-fill-above", d.bulkFillAbove()),
        intValue(properties, "publish-messages", d.publishMessages()),
        intValue(properties, "latency-samples", d.localLatency()),
        intValue(properties, "remote-latency-samples", d.remoteLatency()),
        intValue(properties, "memory-backlog", d.memoryBacklog()),
        Duration.ofSeconds(intValue(properties, "max-drain-seconds", d.maxDrainSeconds())),
        Duration.ofSeconds(intValue(properties, "memory-max-seconds", d.memoryMaxSeconds())),
        Duration.ofSeconds(intValue(properties, "gruelbox-retry-seconds", d.gruelboxRetrySeconds())));
  }

  boolean runs(Row row) {
    return rows.contains(row);
  }

  /** Whether a backlog of this size is filled by the verified bulk insert rather than by publishing. */
  boolean bulkFills(int size) {
    return size > bulkFillAbove;
  }

  private record Defaults(int rounds, int groups, int backlog, String growth, int bulkFillAbove, int publishMessages,
      int localLatency, int remoteLatency, int memoryBacklog, int maxDrainSeconds, int memoryMaxSeconds,
      int gruelboxRetrySeconds) {}

  private static int intValue(Properties properties, String key, int fallback) {
    String value = properties.getProperty(PREFIX + key);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PREFIX + key + "=" + value + " is not a whole number: write it in digits,"
          + " for example " + PREFIX + key + "=" + fallback);
    }
  }

  private static List<Integer> sizes(String value) {
    List<Integer> sizes = new ArrayList<>();
    for (String part : value.split(",")) {
      try {
        sizes.add(Integer.parseInt(part.trim().replace("_", "")));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(PREFIX + "growth=" + value + ": '" + part.trim() + "' is not a whole number;"
            + " write the backlog sizes in digits separated by commas, for example 10000,100000");
      }
    }
    sizes.sort(Integer::compare);
    return sizes;
  }

  private static void check(boolean valid, String key, Object value, String rule) {
    if (!valid) {
      throw new IllegalArgumentException(PREFIX + key + "=" + value + " is out of range: it must be " + rule);
    }
  }
}
