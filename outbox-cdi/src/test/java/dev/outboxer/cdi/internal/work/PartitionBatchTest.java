package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The relay contract as the worker applies it to what a relay reported. */
class PartitionBatchTest {

  private static final RuntimeException UNREPORTED = new IllegalStateException("no outcome");

  private static OutboxRecord record(long id, String groupKey) {
    return new OutboxRecord(id, "orders", 0, groupKey, "T", "application/json", new byte[0], Map.of(), 0, Instant.EPOCH);
  }

  private final OutboxRecord a1 = record(1, "a");
  private final OutboxRecord b1 = record(2, "b");
  private final OutboxRecord a2 = record(3, "a");
  private final OutboxRecord free = record(4, null);
  private final OutboxRecord a3 = record(5, "a");

  private PartitionBatch batch(Ordering ordering) {
    return new PartitionBatch("orders", 0, ordering, List.of(a1, b1, a2, free, a3), Instant.MAX);
  }

  @Test
  void in_group_mode_a_failure_holds_back_the_rest_of_its_group_only() {
    PartitionBatch batch = batch(Ordering.GROUP);
    batch.confirm(a1);
    batch.fail(a2, new RuntimeException("boom"));

    assertThat(batch.heldBack(a3)).isTrue();
    assertThat(batch.heldBack(b1)).isFalse();
    assertThat(batch.heldBack(free)).isFalse();
    assertThat(batch.heldBack(a1)).as("before the failure").isFalse();
    batch.confirm(b1);
    batch.confirm(free);
    batch.close();

    PartitionBatch.Outcomes outcomes = batch.evaluate(UNREPORTED);
    assertThat(outcomes.confirmed()).containsExactly(a1, b1, free);
    assertThat(outcomes.failed()).extracting(PartitionBatch.Failure::record).containsExactly(a2);
    assertThat(outcomes.failed().get(0).cause()).hasMessage("boom");
    assertThat(outcomes.heldBack()).isEqualTo(1);
  }

  @Test
  void in_total_mode_a_failure_holds_back_everything_after_it() {
    PartitionBatch batch = batch(Ordering.TOTAL);
    batch.confirm(a1);
    batch.fail(b1, new RuntimeException("boom"));
    assertThat(batch.heldBack(free)).isTrue();
    batch.close();

    PartitionBatch.Outcomes outcomes = batch.evaluate(UNREPORTED);
    assertThat(outcomes.confirmed()).containsExactly(a1);
    assertThat(outcomes.failed()).extracting(PartitionBatch.Failure::record).containsExactly(b1);
    assertThat(outcomes.heldBack()).isEqualTo(3);
  }

  @Test
  void without_ordering_nothing_is_held_back_and_every_unreported_record_fails() {
    PartitionBatch batch = batch(Ordering.NONE);
    batch.fail(a1, new RuntimeException("boom"));
    assertThat(batch.heldBack(a2)).isFalse();
    batch.confirm(a2);
    batch.close();

    PartitionBatch.Outcomes outcomes = batch.evaluate(UNREPORTED);
    assertThat(outcomes.confirmed()).containsExactly(a2);
    assertThat(outcomes.failed()).extracting(PartitionBatch.Failure::record).containsExactly(a1, b1, free, a3);
    assertThat(outcomes.failed()).filteredOn(failure -> failure.record() != a1)
        .allSatisfy(failure -> assertThat(failure.cause()).isSameAs(UNREPORTED));
  }

  @Test
  void an_unreported_head_fails_and_a_confirmation_behind_it_is_not_honoured() {
    PartitionBatch batch = batch(Ordering.GROUP);
    batch.confirm(a2); // out of order: a1 has no outcome
    batch.close();

    PartitionBatch.Outcomes outcomes = batch.evaluate(UNREPORTED);
    assertThat(outcomes.failed()).extracting(PartitionBatch.Failure::record).containsExactly(a1, b1, free);
    assertThat(outcomes.confirmed()).isEmpty();
    assertThat(outcomes.heldBack()).as("a2 and a3 stay pending").isEqualTo(2);
  }

  @Test
  void the_first_report_wins_and_reports_after_close_are_ignored() {
    PartitionBatch batch = batch(Ordering.GROUP);
    batch.confirm(a1);
    batch.fail(a1, new RuntimeException("late"));
    batch.close();
    batch.confirm(b1);

    PartitionBatch.Outcomes outcomes = batch.evaluate(UNREPORTED);
    assertThat(outcomes.confirmed()).containsExactly(a1);
    assertThat(outcomes.failed()).extracting(PartitionBatch.Failure::record).contains(b1);
  }

  @Test
  void a_record_of_another_batch_is_refused() {
    PartitionBatch batch = batch(Ordering.GROUP);
    assertThatThrownBy(() -> batch.confirm(record(99, "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Message 99 is not part of this batch of outbox 'orders', partition 0");
  }
}
