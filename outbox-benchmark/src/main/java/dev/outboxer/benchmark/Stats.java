package dev.outboxer.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Median, extremes and percentiles of small samples. */
final class Stats {

  private Stats() {}

  static double median(List<Double> values) {
    List<Double> sorted = sorted(values);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static double min(List<Double> values) {
    return Collections.min(values);
  }

  static double max(List<Double> values) {
    return Collections.max(values);
  }

  /** The nearest-rank percentile: the smallest value that at least {@code percent}% of the values do not exceed. */
  static double percentile(List<Double> values, double percent) {
    List<Double> sorted = sorted(values);
    int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  private static List<Double> sorted(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no values");
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted;
  }
}
