package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The short run (about 2 minutes): 3 worker JVMs, a publisher JVM, the fenced table relay, every
 * fault kind. Passes when Outboxer keeps its promises. {@code -Doutboxer.chaos.database=mariadb}
 * runs it on MariaDB; {@code -Doutboxer.chaos.args="seed=7 messages=5000"} changes any setting.
 */
class ShortChaosRunTest {

  @Test
  void a_fenced_cluster_keeps_order_loses_nothing_and_repeats_only_whole_batches_under_kills_pauses_and_cut_connections()
      throws Exception {
    ChaosSettings settings = Presets.apply(RunArgs.forPreset("short"));
    Report report = ChaosRun.run(settings);
    System.out.println(report.table());

    assertThat(report.faultCount()).as("faults injected").isPositive();
    assertThat(report.failures()).as(report.table()).isEmpty();
  }
}
