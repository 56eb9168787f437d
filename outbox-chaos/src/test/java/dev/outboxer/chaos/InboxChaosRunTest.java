package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The inbox run (about 2-3 minutes): the Kafka relay under every fault kind, read by a consumer
 * that asks {@code outbox-inbox} inside its own database transaction before its handler records a
 * message, and that goes back to its committed offsets every 150 arrivals (a crash between its
 * database commit and its offset commit). Passes when nothing is lost, every group reaches the
 * handler in order, no duplicate reaches it, and the inbox dropped copies: at least one per rewind.
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
    // The inbox was exercised: copies reached the consumer and it dropped them. The faults make some
    // (or none, as luck has it); the consumer's rewinds make at least one each.
    assertThat(report.consumerRewinds()).as("consumer rewinds\n" + report.table()).isPositive();
    assertThat(report.droppedByInbox()).as("arrivals dropped by the inbox\n" + report.table())
        .isGreaterThanOrEqualTo((int) report.consumerRewinds());
  }
}
