package dev.outboxer.benchmark;

/**
 * What one drain achieved.
 *
 * @param committed messages whose deletion committed
 * @param backlog messages that were waiting, or that the drain waited for
 * @param seconds from the first batch handed over to the last commit
 * @param finished whether all of them committed within {@code bench.max-drain-seconds}
 * @param fillSeconds how long filling the backlog took (not part of the rate)
 * @param rolledBackBatches batches the relay confirmed whose transaction then rolled back (a
 *     deadlock, for example): their messages were handed to the relay again
 */
record DrainOutcome(long committed, long backlog, double seconds, boolean finished, double fillSeconds,
    long rolledBackBatches) {

  static DrainOutcome of(DrainProbe probe, long backlog, boolean finished) {
    java.util.List<String> problems = probe.problems();
    if (!problems.isEmpty()) {
      throw new IllegalStateException("The drain went wrong: " + String.join("; ", problems));
    }
    return new DrainOutcome(probe.committed(), backlog, probe.seconds(), finished, 0, probe.rolledBackBatches());
  }

  DrainOutcome filledIn(double fill) {
    return new DrainOutcome(committed, backlog, seconds, finished, fill, rolledBackBatches);
  }

  double rate() {
    return seconds <= 0 ? 0 : committed / seconds;
  }
}
