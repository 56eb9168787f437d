package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The read cursor never passes an id that is not settled: a checkpoint (sequence value S read by a
 * claim) is armed by the next probe with the transactions running then, and settles only at a
 * later probe that finds none of them running any more; held-back rows pin it; a rewind moves it
 * back; proposals change nothing until applied.
 */
class PartitionCursorTest {

  private static final long END = Long.MAX_VALUE;
  private static final long[] NOT_ASKED = null;

  /** Probed identities of running transactions, sorted as the store returns them. */
  private static long[] running(long... transactions) {
    long[] sorted = transactions.clone();
    java.util.Arrays.sort(sorted);
    return sorted;
  }

  @Test
  void the_cursor_stays_at_the_start_until_a_checkpoint_settles() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    // Read everything up to the end, but the transactions that held ids up to 100 may still run.
    PartitionCursor.Proposal first = cursor.propose(100, NOT_ASKED, END, END);
    assertThat(first.scanFrom()).as("nothing settled yet").isEqualTo(1);
    cursor.apply(first);

    // The next probe arms the checkpoint: A and B were running after 100 was read.
    PartitionCursor.Proposal second = cursor.propose(150, running(11, 12), END, END);
    assertThat(second.scanFrom()).isEqualTo(1);
    cursor.apply(second);

    // B still runs: not settled.
    PartitionCursor.Proposal third = cursor.propose(200, running(12, 13), END, END);
    assertThat(third.settled()).isZero();
    cursor.apply(third);

    // A and B have ended: ids up to 100 are settled; 150 waits for C (13), running when it was armed.
    PartitionCursor.Proposal fourth = cursor.propose(200, running(13, 14), END, END);
    assertThat(fourth.settled()).isEqualTo(100);
    assertThat(fourth.scanFrom()).isEqualTo(101);
  }

  @Test
  void a_transaction_running_when_the_checkpoint_was_armed_holds_it_until_it_ends_whatever_the_clocks_say() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    // T (identity 7) drew id 100; then the clock was set back: nothing here compares times.
    cursor.apply(cursor.propose(100, NOT_ASKED, END, END));
    cursor.apply(cursor.propose(100, running(7), END, END));
    for (int batch = 0; batch < 100; batch++) {
      PartitionCursor.Proposal proposal = cursor.propose(100, running(7, 1_000 + batch), END, END);
      assertThat(proposal.settled()).as("settled while the transaction holding id 100 still runs").isZero();
      cursor.apply(proposal);
    }
    assertThat(cursor.propose(100, running(5_000), END, END).settled()).as("once T ended").isEqualTo(100);
  }

  @Test
  void a_probe_that_finds_nothing_running_settles_the_checkpoint_it_arms() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(100, NOT_ASKED, END, END));
    PartitionCursor.Proposal proposal = cursor.propose(120, running(), END, END);
    assertThat(proposal.settled()).as("every transaction that could hold ids up to 100 ended before the probe")
        .isEqualTo(100);
    assertThat(proposal.scanFrom()).isEqualTo(101);
    assertThat(proposal.checkpoints()).as("120 waits for the next probe").hasSize(1);
  }

  @Test
  void the_running_transactions_are_probed_only_while_a_checkpoint_waits_to_settle() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    assertThat(cursor.needsRunningProbe()).as("nothing to settle").isFalse();
    // The first read of a backlog adds a checkpoint (no probe was made).
    cursor.apply(cursor.propose(100, NOT_ASKED, END, END));
    assertThat(cursor.needsRunningProbe()).as("a checkpoint waits").isTrue();
    // The probe arms it; nothing was published since (the sequence stands at 100): nothing new to settle.
    cursor.apply(cursor.propose(100, running(1), END, END));
    assertThat(cursor.checkpointCount()).as("one checkpoint per sequence value").isEqualTo(1);
    cursor.apply(cursor.propose(100, running(2), END, END));
    assertThat(cursor.settled()).isEqualTo(100);
    assertThat(cursor.needsRunningProbe()).as("everything read is settled").isFalse();
    cursor.apply(cursor.propose(100, NOT_ASKED, END, END));
    assertThat(cursor.needsRunningProbe()).isFalse();
    assertThat(cursor.scanFrom()).as("reads start above what is settled").isEqualTo(101);
    // A publish moved the sequence: the next read needs the probe again.
    cursor.apply(cursor.propose(150, NOT_ASKED, END, END));
    assertThat(cursor.needsRunningProbe()).isTrue();
    assertThat(cursor.settled()).as("settled by nothing unprobed").isEqualTo(100);
    assertThat(PartitionCursor.disabled().needsRunningProbe()).isFalse();
  }

  @Test
  void a_read_cut_off_by_the_batch_size_limits_the_cursor_to_what_was_read() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, running(), END, END));
    PartitionCursor.Proposal proposal = cursor.propose(2_000, running(), 400, END);
    assertThat(proposal.settled()).isEqualTo(1_000);
    assertThat(proposal.scanFrom()).as("rows after 400 were not read").isEqualTo(401);
  }

  @Test
  void a_row_held_back_in_the_batch_pins_the_cursor_below_it() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, running(), END, END));
    PartitionCursor.Proposal proposal = cursor.propose(2_000, running(), END, 77);
    assertThat(proposal.scanFrom()).isEqualTo(77);
  }

  @Test
  void a_database_that_cannot_tell_what_is_settled_settles_nothing() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, NOT_ASKED, END, END));
    // null: a prepared transaction exists, or a session is hidden from the application's user.
    PartitionCursor.Proposal proposal = cursor.propose(2_000, NOT_ASKED, END, END);
    assertThat(proposal.settled()).isZero();
    assertThat(proposal.scanFrom()).isEqualTo(1);
  }

  @Test
  void proposals_change_nothing_until_applied_and_a_reset_or_rewind_moves_back() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, running(), END, END));
    cursor.apply(cursor.propose(2_000, running(), END, END));
    assertThat(cursor.scanFrom()).isEqualTo(1_001);

    cursor.propose(3_000, running(), END, END);
    assertThat(cursor.scanFrom()).as("a batch that did not commit moves nothing").isEqualTo(1_001);

    cursor.rewindTo(500);
    assertThat(cursor.scanFrom()).isEqualTo(500);
    cursor.rewindTo(900);
    assertThat(cursor.scanFrom()).as("a rewind never moves forward").isEqualTo(500);

    cursor.reset();
    assertThat(cursor.scanFrom()).isZero();
    assertThat(cursor.settled()).isZero();
  }

  @Test
  void without_settled_reads_every_read_starts_at_the_first_row() {
    PartitionCursor cursor = PartitionCursor.disabled();
    cursor.apply(cursor.propose(1_000, running(), END, END));
    cursor.apply(cursor.propose(2_000, running(), END, END));
    cursor.rewindTo(5);
    assertThat(cursor.scanFrom()).isZero();
  }

  @Test
  void every_sweep_interval_a_read_starts_at_the_first_row_and_names_the_rows_left_behind() {
    java.time.Instant start = java.time.Instant.parse("2026-12-07T10:00:00Z");
    PartitionCursor cursor = PartitionCursor.settledReads();
    assertThat(cursor.sweepIfDue(start)).as("the first read schedules the first sweep").isFalse();
    cursor.apply(cursor.propose(1_000, NOT_ASKED, END, END));
    cursor.apply(cursor.propose(1_000, running(), END, END));
    assertThat(cursor.scanFrom()).isEqualTo(1_001);
    assertThat(cursor.sweepIfDue(start.plusSeconds(5))).as("not due").isFalse();
    assertThat(cursor.leftBehind(java.util.List.of(row(7, null)))).as("outside a sweep").isEmpty();

    assertThat(cursor.sweepIfDue(start.plus(PartitionCursor.SWEEP_INTERVAL))).isTrue();
    assertThat(cursor.scanFrom()).as("the sweep reads from the first row").isZero();
    assertThat(cursor.rewindBelow()).as("a due retry below where reads started rewinds").isEqualTo(1_001);
    java.time.LocalDateTime due = java.time.LocalDateTime.of(2026, 12, 7, 10, 0);
    assertThat(cursor.leftBehind(java.util.List.of(row(7, null), row(9, due), row(1_001, null), row(1_002, null))))
        .as("fresh rows below 1,001; a due retry is no row left behind").containsExactly(7L);

    // A due retry at 500 below where reads started: its group's rows above it were skipped on purpose.
    cursor.rewindTo(500);
    assertThat(cursor.leftBehind(java.util.List.of(row(7, null), row(600, null)))).containsExactly(7L);

    cursor.apply(cursor.propose(1_000, running(), END, END));
    assertThat(cursor.scanFrom()).as("back where it was").isEqualTo(1_001);
    assertThat(cursor.leftBehind(java.util.List.of(row(7, null)))).as("the sweep is over").isEmpty();
    assertThat(cursor.sweepIfDue(start.plus(PartitionCursor.SWEEP_INTERVAL).plusSeconds(1))).isFalse();
  }

  @Test
  void a_clock_set_back_does_not_stop_the_sweeps() {
    java.time.Instant start = java.time.Instant.parse("2026-12-07T10:00:00Z");
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.sweepIfDue(start);
    cursor.apply(cursor.propose(1_000, NOT_ASKED, END, END));
    cursor.apply(cursor.propose(1_000, running(), END, END));
    java.time.Instant setBack = start.minus(java.time.Duration.ofHours(1));
    assertThat(cursor.sweepIfDue(setBack)).isFalse();
    assertThat(cursor.sweepIfDue(setBack.plus(PartitionCursor.SWEEP_INTERVAL))).as("an interval after the set-back")
        .isTrue();
  }

  private static dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage row(long id,
      java.time.LocalDateTime nextAttemptAt) {
    return new dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage(id, "g", "T", "application/json",
        new byte[0], null, 0, nextAttemptAt, java.time.LocalDateTime.of(2026, 12, 7, 9, 0));
  }
}
