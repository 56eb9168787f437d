package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The read cursor never passes an id that is not settled: a checkpoint (sequence value S read at
 * the claim, database clock t at the read) settles only once every running transaction began after
 * t; held-back rows pin it; a rewind moves it back; proposals change nothing until applied.
 */
class PartitionCursorTest {

  private static final long END = Long.MAX_VALUE;

  @Test
  void the_cursor_stays_at_the_start_until_a_checkpoint_settles() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    // Read everything up to the end, but the transactions that held ids up to 100 may still run.
    PartitionCursor.Proposal first = cursor.propose(100, 1_000, 900, END, END);
    assertThat(first.scanFrom()).as("nothing settled yet").isEqualTo(1);
    cursor.apply(first);

    // The oldest running transaction began before the checkpoint's read: not settled.
    PartitionCursor.Proposal second = cursor.propose(150, 2_000, 1_000, END, END);
    assertThat(second.scanFrom()).isEqualTo(1);
    cursor.apply(second);

    // Every running transaction began after the first checkpoint's read: ids up to 100 are settled.
    PartitionCursor.Proposal third = cursor.propose(200, 3_000, 1_001, END, END);
    assertThat(third.settled()).isEqualTo(100);
    assertThat(third.scanFrom()).isEqualTo(101);
  }

  @Test
  void the_running_transactions_are_probed_only_while_a_checkpoint_waits_to_settle() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    assertThat(cursor.needsRunningProbe()).as("nothing to settle").isFalse();
    // The first read of a backlog adds a checkpoint (no probe was made: 0).
    cursor.apply(cursor.propose(100, 1_000, 0, END, END));
    assertThat(cursor.needsRunningProbe()).as("a checkpoint waits").isTrue();
    // The probe settles it; nothing was published since (the sequence stands at 100): nothing new to settle.
    cursor.apply(cursor.propose(100, 2_000, 1_001, END, END));
    assertThat(cursor.settled()).isEqualTo(100);
    assertThat(cursor.needsRunningProbe()).as("everything read is settled").isFalse();
    cursor.apply(cursor.propose(100, 3_000, 0, END, END));
    assertThat(cursor.needsRunningProbe()).isFalse();
    assertThat(cursor.scanFrom()).as("reads start above what is settled").isEqualTo(101);
    // A publish moved the sequence: the next read needs the probe again.
    cursor.apply(cursor.propose(150, 4_000, 0, END, END));
    assertThat(cursor.needsRunningProbe()).isTrue();
    assertThat(cursor.settled()).as("settled by nothing unprobed").isEqualTo(100);
    assertThat(PartitionCursor.disabled().needsRunningProbe()).isFalse();
  }

  @Test
  void a_read_cut_off_by_the_batch_size_limits_the_cursor_to_what_was_read() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, 10, 5, END, END));
    PartitionCursor.Proposal proposal = cursor.propose(2_000, 20, 11, 400, END);
    assertThat(proposal.settled()).isEqualTo(1_000);
    assertThat(proposal.scanFrom()).as("rows after 400 were not read").isEqualTo(401);
  }

  @Test
  void a_row_held_back_in_the_batch_pins_the_cursor_below_it() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, 10, 5, END, END));
    PartitionCursor.Proposal proposal = cursor.propose(2_000, 20, 11, END, 77);
    assertThat(proposal.scanFrom()).isEqualTo(77);
  }

  @Test
  void a_database_that_cannot_tell_what_is_settled_settles_nothing() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, 10, 0, END, END));
    // 0: a prepared transaction exists, or a session is hidden from the application's user.
    PartitionCursor.Proposal proposal = cursor.propose(2_000, 20, 0, END, END);
    assertThat(proposal.settled()).isZero();
    assertThat(proposal.scanFrom()).isEqualTo(1);
  }

  @Test
  void proposals_change_nothing_until_applied_and_a_reset_or_rewind_moves_back() {
    PartitionCursor cursor = PartitionCursor.settledReads();
    cursor.apply(cursor.propose(1_000, 10, 5, END, END));
    cursor.apply(cursor.propose(2_000, 20, 11, END, END));
    assertThat(cursor.scanFrom()).isEqualTo(1_001);

    cursor.propose(3_000, 30, 21, END, END);
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
    cursor.apply(cursor.propose(1_000, 10, 5, END, END));
    cursor.apply(cursor.propose(2_000, 20, 11, END, END));
    cursor.rewindTo(5);
    assertThat(cursor.scanFrom()).isZero();
  }
}
