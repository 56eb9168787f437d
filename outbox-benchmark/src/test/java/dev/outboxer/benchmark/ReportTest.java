package dev.outboxer.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

  @Test
  void a_cell_shows_the_median_and_the_range_and_the_ratio_compares_medians() {
    Results results = new Results();
    results.metric("drain.p1", "1. drain 20,000, 1 partition", "msg/s");
    results.metric("latency.local.p50", "5. latency on one idle node, p50", "ms");
    for (double value : new double[] {30_000, 10_000, 20_000}) {
      results.add("drain.p1", Contender.RAW, value);
      results.add("drain.p1", Contender.OUTBOXER, value / 2);
    }
    results.add("latency.local.p50", Contender.OUTBOXER, 4.5);
    results.error("drain.p1", Contender.GRUELBOX, "it broke | badly");

    results.partial("drain.p1", Contender.OUTBOXER, "800 of 20,000 in round 2");
    String markdown = Report.markdown(new Report.Header("title", List.of("a fact")), results, 3, 8);

    assertThat(markdown).contains("| 1. drain 20,000, 1 partition (msg/s) | 20,000 (10,000-30,000) | 10,000 (5,000-15,000)"
        + " partial | error [1] | 0.50 |");
    assertThat(markdown).contains("- Outboxer, 1. drain 20,000, 1 partition: 800 of 20,000 in round 2");
    assertThat(markdown).contains("| 5. latency on one idle node, p50 (ms) | n/a | 4.50 | n/a |  |");
    assertThat(markdown).contains("- [1] gruelbox, 1. drain 20,000, 1 partition: 1 error(s), first: it broke / badly");
    assertThat(markdown).contains("- a fact");
  }

  @Test
  void percentiles_are_nearest_rank() {
    List<Double> values = List.of(5.0, 1.0, 4.0, 2.0, 3.0);

    assertThat(Stats.percentile(values, 50)).isEqualTo(3.0);
    assertThat(Stats.percentile(values, 99)).isEqualTo(5.0);
    assertThat(Stats.median(List.of(1.0, 2.0, 3.0, 10.0))).isEqualTo(2.5);
  }
}
