package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The RabbitMQ run (about a minute and a half): 2 worker JVMs whose RabbitMQ relay publishes with
 * confirms to one queue of the machine's RabbitMQ (127.0.0.1:5672, guest; {@code .ci/run} starts
 * it), a publisher JVM, every fault kind (kills, pauses past the lease, ended sessions), read by
 * one consumer that asks {@code outbox-inbox} in its own database transaction before it
 * acknowledges, and that closes its channel before the acknowledgement every 100 arrivals (a crash
 * between its database commit and its acknowledgement). Passes when nothing is lost or dead, every
 * group reaches the handler in order, no two batches of a partition interleave, no duplicate
 * reaches the handler, and the inbox dropped copies: at least one per rewind. {@code
 * -Doutboxer.chaos.args="seed=7 messages=1000"} changes any setting.
 */
class RabbitChaosRunTest {

  @Test
  void a_consumer_dropping_copies_by_id_sees_every_rabbitmq_message_once_and_in_group_order_under_kills_pauses_and_cut_connections()
      throws Exception {
    ChaosSettings settings = Presets.apply(RunArgs.forPreset("rabbitmq"));
    Report report = ChaosRun.run(settings);
    System.out.println(report.table());

    assertThat(report.faultCount()).as("faults injected").isPositive();
    assertThat(report.loss()).as("messages lost\n" + report.table()).isZero();
    assertThat(report.orderViolations()).as("order violations\n" + report.table()).isZero();
    assertThat(report.overlaps()).as("overlapping batches\n" + report.table()).isZero();
    assertThat(report.duplicates()).as("duplicates that reached the handler\n" + report.table()).isZero();
    assertThat(report.failures()).as(report.table()).isEmpty();
    // The inbox was exercised: each rewind hands one delivery out again, which it must drop.
    assertThat(report.consumerRewinds()).as("consumer rewinds\n" + report.table()).isPositive();
    assertThat(report.droppedByInbox()).as("arrivals dropped by the inbox\n" + report.table())
        .isGreaterThanOrEqualTo((int) report.consumerRewinds());
  }
}
