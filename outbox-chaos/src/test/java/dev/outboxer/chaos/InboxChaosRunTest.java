package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The inbox run (about 2-3 minutes): the Kafka relay under every fault kind, read by a consumer
 * that asks {@code outbox-inbox} inside its own database transaction before its handler records a
 * message. Passes when nothing is lost, every group reaches the handler in order and no duplicate
 * reaches it; copies that reach the consumer are dropped by the inbox.
 */
class InboxChaosRunTest {

  @Test
  void a_consumer_behind_the_inbox_handles_each_message_once_and_in_group_order_under_kills_pauses_and_cut_connections()
      throws Exception {
    ChaosSettings settings = Presets.apply(RunArgs.forPreset("inbox"));
    Report report = ChaosRun.run(settings);
    System.out.println(report.table());

    assertThat(report.faultCount()).as("faults injected").isPositive();
    assertThat(report.failures()).as(report.table()).isEmpty();
    assertThat(report.duplicates()).as("duplicates that reached the handler\n" + report.table()).isZero();
  }
}
