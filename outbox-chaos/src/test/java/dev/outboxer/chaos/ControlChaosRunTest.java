package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The control run: the short run with fencing switched off everywhere (the table relay ignores the
 * claim, the destination compares no tokens, the workers get {@code -Doutboxer.fencing=off}). Paused
 * workers lose their sessions and come back as stale writers; the checker must see it. If this test
 * fails, the checker (or the fault schedule) has gone blind, and the short run's pass means nothing.
 */
class ControlChaosRunTest {

  @Test
  void the_checker_flags_stale_writers_when_fencing_is_off() throws Exception {
    ChaosSettings settings = Presets.apply(RunArgs.forPreset("control"));
    Report report = ChaosRun.run(settings);
    System.out.println(report.table());

    assertThat(report.passed()).as("the control run must fail:\n" + report.table()).isFalse();
    // A stale writer shows as batches of one partition accepted interleaved, or as the repeats and
    // reordering it causes; a run that fails only for lack of data or faults proves nothing.
    assertThat(report.overlaps() + report.orderViolations() + report.duplicatesNotWholeBatch()
        + report.duplicatesUnattributed())
        .as("stale-writer findings in:\n" + report.table())
        .isPositive();
    assertThat(report.committed()).isPositive();
  }
}
