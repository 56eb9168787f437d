package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checker's judgement on small hand-written histories: it must pass a clean one and name each
 * kind of breakage, so that a passing chaos run means something.
 */
class CheckerTest {

  private final List<Ledger.Entry> ledger = new ArrayList<>();
  private final List<Checker.Delivery> deliveries = new ArrayList<>();
  private final List<Checker.Event> events = new ArrayList<>();
  private final Map<Long, OutboxerTables.Leftover> leftovers = new HashMap<>();
  private long clock;

  private void committed(long id, String group, int seq, int partition) {
    ledger.add(new Ledger.Entry(id, group, seq, partition));
  }

  private void accepted(long id, String group, int partition, long token, String worker, String batch, long batchStart) {
    deliveries.add(new Checker.Delivery(++clock, id, group, partition, token, worker, batch, batchStart,
        wallOf(batchStart), Destination.ACCEPTED));
  }

  private long tick() {
    return ++clock;
  }

  private void fault(String kind, String target) {
    ++clock;
    events.add(new Checker.Event(clock, wallOf(clock), kind, target, ""));
  }

  /** Wall-clock time of a clock tick: ticks are 10 s apart, further than the checker's grace. */
  private static long wallOf(long tick) {
    return 1_000_000 + tick * 10_000;
  }

  private Report check(long maxAttempts) {
    return Checker.check(new Checker.Inputs(ledger, deliveries, events, leftovers), maxAttempts, true);
  }

  /** Two groups in one partition, delivered once each in two batches, one fault logged. */
  private void cleanHistory() {
    committed(1, "a", 1, 0);
    committed(2, "b", 1, 0);
    committed(3, "a", 2, 0);
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    accepted(2, "b", 0, 1, "w1", "w1/1/1", start);
    fault("connections", "w2");
    start = tick();
    accepted(3, "a", 0, 2, "w2", "w2/1/1", start);
  }

  @Test
  void a_clean_history_passes() {
    cleanHistory();
    Report report = check(3);
    assertThat(report.failures()).isEmpty();
    assertThat(report.passed()).isTrue();
  }

  @Test
  void a_committed_message_that_never_arrived_is_loss_unless_it_is_dead() {
    cleanHistory();
    committed(4, "b", 2, 0);
    committed(5, "c", 1, 0);
    leftovers.put(5L, new OutboxerTables.Leftover(5, "DEAD", 3, "injected"));
    Report report = check(3);
    assertThat(report.loss()).isEqualTo(1);
    assertThat(report.deadViolations()).isZero();
  }

  @Test
  void a_message_of_a_rolled_back_transaction_that_arrived_is_a_phantom() {
    cleanHistory();
    accepted(99, "a", 0, 2, "w2", "w2/1/1", 1);
    assertThat(check(3).phantoms()).isEqualTo(1);
  }

  @Test
  void a_later_message_arriving_first_is_an_order_violation_for_an_id_filtering_consumer() {
    committed(1, "a", 1, 0);
    committed(2, "a", 2, 0);
    fault("kill", "w1");
    long start = tick();
    accepted(2, "a", 0, 1, "w1", "w1/1/1", start);
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    Report report = check(3);
    assertThat(report.orderViolations()).isEqualTo(1);
    assertThat(report.orderViolationGroups()).isEqualTo(1);
  }

  @Test
  void ids_out_of_ledger_order_are_an_order_violation_even_when_ids_increase() {
    // The group's write lock failed: message 2 committed before message 1.
    committed(1, "a", 2, 0);
    committed(2, "a", 1, 0);
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    accepted(2, "a", 0, 1, "w1", "w1/1/1", start);
    fault("kill", "w1");
    assertThat(check(3).orderViolations()).isPositive();
  }

  @Test
  void a_whole_batch_redelivered_after_a_fault_of_its_worker_is_an_allowed_duplicate() {
    committed(1, "a", 1, 0);
    committed(2, "a", 2, 0);
    committed(3, "a", 3, 0);
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    accepted(2, "a", 0, 1, "w1", "w1/1/1", start);
    fault("kill", "w1");
    start = tick();
    accepted(1, "a", 0, 2, "w2", "w2/1/1", start);
    accepted(2, "a", 0, 2, "w2", "w2/1/1", start);
    accepted(3, "a", 0, 2, "w2", "w2/1/1", start);
    Report report = check(3);
    assertThat(report.duplicates()).isEqualTo(2);
    assertThat(report.failures()).isEmpty();
  }

  @Test
  void with_exactly_once_promised_even_a_whole_batch_redelivered_after_a_fault_fails_the_run() {
    committed(1, "a", 1, 0);
    committed(2, "a", 2, 0);
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    fault("kill", "w1");
    start = tick();
    accepted(1, "a", 0, 2, "w2", "w2/1/1", start);
    accepted(2, "a", 0, 2, "w2", "w2/1/1", start);
    Checker.Inputs inputs = new Checker.Inputs(ledger, deliveries, events, leftovers);
    assertThat(Checker.check(inputs, 3, true, false).failures()).isEmpty();
    Report strict = Checker.check(inputs, 3, true, true);
    assertThat(strict.duplicates()).isEqualTo(1);
    assertThat(strict.failures()).anyMatch(text -> text.contains("1 duplicate(s) reached the handler"));
    assertThat(strict.table()).contains("duplicates (exactly once: none allowed)").contains("VIOLATED");
  }

  @Test
  void copies_the_inbox_dropped_and_rolled_back_handler_runs_are_counted_but_are_not_deliveries() {
    committed(1, "a", 1, 0);
    committed(2, "a", 2, 0);
    long start = tick();
    deliveries.add(new Checker.Delivery(++clock, 1, "a", 0, 1, "w1", "w1/1/1", start, wallOf(start), LocalHandler.RAN));
    fault("connections", "w1");
    accepted(1, "a", 0, 1, "consumer", "token-1", 0);
    deliveries.add(new Checker.Delivery(++clock, 1, "a", 0, 1, "consumer", "token-1", 0, 0, Destination.DROPPED));
    accepted(2, "a", 0, 1, "consumer", "token-1", 0);
    Report report = Checker.check(new Checker.Inputs(ledger, deliveries, events, leftovers), 3, true, true);
    assertThat(report.failures()).isEmpty();
    assertThat(report.duplicates()).isZero();
    assertThat(report.droppedByInbox()).isEqualTo(1);
    assertThat(report.handlerRuns()).isEqualTo(1);
    // Without its DROPPED mark the copy would be a duplicate that reached the handler.
    deliveries.set(3, new Checker.Delivery(deliveries.get(3).ts(), 1, "a", 0, 1, "consumer", "token-1", 0, 0,
        Destination.ACCEPTED));
    assertThat(Checker.check(new Checker.Inputs(ledger, deliveries, events, leftovers), 3, true, true).passed())
        .isFalse();
  }

  @Test
  void a_fault_during_the_earlier_batch_but_logged_before_its_first_delivery_still_counts() {
    committed(1, "a", 1, 0);
    long start = tick();
    fault("connections", "w1");
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    start = tick();
    accepted(1, "a", 0, 2, "w2", "w2/1/1", start);
    assertThat(check(3).duplicatesUnattributed()).isZero();
  }

  @Test
  void a_fault_logged_just_before_the_earlier_batch_reached_the_relay_counts_it_may_have_hit_its_claim() {
    committed(1, "a", 1, 0);
    fault("connections", "w1");
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    deliveries.set(0, new Checker.Delivery(deliveries.get(0).ts(), 1, "a", 0, 1, "w1", "w1/1/1", start,
        events.get(0).atMs() + 500, Destination.ACCEPTED));
    start = tick();
    accepted(1, "a", 0, 2, "w2", "w2/1/1", start);
    assertThat(check(3).duplicatesUnattributed()).isZero();
  }

  @Test
  void a_repeat_without_a_fault_of_the_earlier_worker_is_unattributed() {
    committed(1, "a", 1, 0);
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    fault("kill", "w3");
    start = tick();
    accepted(1, "a", 0, 2, "w2", "w2/1/1", start);
    Report report = check(3);
    assertThat(report.duplicatesUnattributed()).isEqualTo(1);
    assertThat(report.passed()).isFalse();
  }

  @Test
  void a_repeat_behind_new_messages_of_its_group_in_the_same_batch_is_not_whole_batch() {
    committed(1, "a", 1, 0);
    committed(2, "a", 2, 0);
    long start = tick();
    accepted(1, "a", 0, 1, "w1", "w1/1/1", start);
    fault("kill", "w1");
    start = tick();
    accepted(2, "a", 0, 2, "w2", "w2/1/1", start);
    accepted(1, "a", 0, 2, "w2", "w2/1/1", start);
    assertThat(check(3).duplicatesNotWholeBatch()).isEqualTo(1);
  }

  @Test
  void two_batches_of_one_partition_accepted_interleaved_are_an_overlap() {
    committed(1, "a", 1, 0);
    committed(2, "b", 1, 0);
    committed(3, "c", 1, 0);
    long startOld = tick();
    accepted(1, "a", 0, 5, "w1", "w1/1/1", startOld);
    fault("pause", "w1");
    long startNew = tick();
    accepted(2, "b", 0, 6, "w2", "w2/1/1", startNew);
    accepted(3, "c", 0, 5, "w1", "w1/1/1", startOld);
    Report report = check(3);
    assertThat(report.overlaps()).isEqualTo(1);
    assertThat(report.passed()).isFalse();
  }

  @Test
  void kafka_arrivals_of_two_batches_interleave_harmlessly_across_kafka_partitions_but_not_within_one() {
    committed(1, "a", 1, 0);
    committed(2, "b", 1, 0);
    committed(3, "c", 1, 0);
    fault("kill", "w1");
    // Batch 5 went to Kafka partitions 0 and 1, batch 6 (sent after it) to partition 2: the consumer
    // read partition 1 last.
    accepted(1, "a", 0, 5, "consumer", "token-5@kafka-0", 0);
    accepted(2, "b", 0, 6, "consumer", "token-6@kafka-2", 0);
    accepted(3, "c", 0, 5, "consumer", "token-5@kafka-1", 0);
    assertThat(check(3).overlaps()).isZero();
    // Within one Kafka partition the consumer's order is the log's: interleaved batches had two writers.
    deliveries.set(2, new Checker.Delivery(deliveries.get(2).ts(), 3, "c", 0, 5, "consumer", "token-5@kafka-0", 0, 0,
        Destination.ACCEPTED));
    deliveries.set(1, new Checker.Delivery(deliveries.get(1).ts(), 2, "b", 0, 6, "consumer", "token-6@kafka-0", 0, 0,
        Destination.ACCEPTED));
    assertThat(check(3).overlaps()).isEqualTo(1);
  }

  /*
   * Found by the long Kafka run: broker arrivals carry tokens (so their batches are known) but name no
   * worker, and every repeat was reported as having "no fault of consumer" to blame.
   */
  @Test
  void a_repeated_broker_arrival_is_blamed_on_a_fault_of_any_worker_from_its_send_time_on() {
    committed(1, "a", 1, 0);
    long sent = tick();
    deliveries.add(new Checker.Delivery(++clock, 1, "a", 0, 5, "consumer", "token-5@kafka-0", 0, wallOf(sent),
        Destination.ACCEPTED));
    fault("batch-rolled-back", "worker-2");
    accepted(1, "a", 0, 6, "consumer", "token-6@kafka-0", 0);
    Report report = check(3);
    assertThat(report.duplicates()).isEqualTo(1);
    assertThat(report.failures()).isEmpty();

    events.clear();
    assertThat(check(3).failures()).as("no fault at all").isNotEmpty();
  }

  @Test
  void batches_of_different_partitions_may_interleave() {
    committed(1, "a", 1, 0);
    committed(2, "b", 1, 1);
    committed(3, "c", 1, 0);
    accepted(1, "a", 0, 5, "w1", "w1/1/1", 1);
    accepted(2, "b", 1, 6, "w2", "w2/1/1", 1);
    accepted(3, "c", 0, 5, "w1", "w1/1/1", 1);
    fault("kill", "w1");
    assertThat(check(3).overlaps()).isZero();
  }

  @Test
  void a_dead_letter_must_have_used_up_max_attempts_and_none_may_die_with_infinity() {
    cleanHistory();
    committed(4, "c", 1, 0);
    leftovers.put(4L, new OutboxerTables.Leftover(4, "DEAD", 2, "injected"));
    assertThat(check(3).deadViolations()).isEqualTo(1);
    leftovers.put(4L, new OutboxerTables.Leftover(4, "DEAD", 3, "injected"));
    assertThat(check(3).deadViolations()).isZero();
    assertThat(check(Long.MAX_VALUE).deadViolations()).isEqualTo(1);
  }

  @Test
  void a_run_without_faults_or_messages_proves_nothing_and_fails() {
    committed(1, "a", 1, 0);
    accepted(1, "a", 0, 1, "w1", "w1/1/1", 1);
    assertThat(check(3).failures()).anyMatch(text -> text.contains("no fault"));
    ledger.clear();
    deliveries.clear();
    fault("kill", "w1");
    assertThat(check(3).failures()).anyMatch(text -> text.contains("nothing was committed"));
  }
}
