package dev.outboxer.cdi.internal.work;

import java.util.ArrayDeque;

/**
 * Where a worker's next read of its partition starts, so that reads cost the same whatever the
 * backlog: a read from the partition's first row would walk every row deleted since the table was
 * last vacuumed (on PostgreSQL, without autovacuum, that grows without bound: 12 ms a batch after a
 * million relayed rows), a read from where the last batch ended walks none of them.
 *
 * <h2>Why it is safe</h2>
 * Ids are drawn when a message is inserted, not when it commits: an id below the cursor may still
 * belong to a transaction that has not committed yet, and a read that starts above it would miss
 * that message, or relay a later message of its group first. So the cursor never passes an id that
 * is not <i>settled</i>. On PostgreSQL the claim reads the message sequence's last value S; the read
 * that follows (a later statement) reads the database clock t. Every transaction holding an id up to
 * S drew it before t, so it began before t. Once a later claim finds that every transaction still
 * running in the database (on other connections) began after t, all of those have ended, and the
 * read after that claim (a later statement, with a later snapshot) sees their rows: every id up to S
 * is settled, committed and visible, or gone. The probe must come before the read's snapshot: made
 * by the read itself, it could find a transaction ended whose commit came just after the read's
 * snapshot, and the cursor passed rows that read had not seen (OrderingRulesTest with the CPU
 * saturated stranded 2 to 13 messages in about 1 run of 8 that way). (Transaction ids would not do:
 * a snapshot's xmax is the latest completed transaction's id plus one, not the next id to be
 * assigned, so a transaction that already drew message ids can lie above it.) The read's snapshot comes after the
 * probe only at READ COMMITTED: above it, the transaction's one snapshot is the claim's, taken before the probe ran,
 * so the probe reports that it cannot tell and nothing settles. A prepared two-phase transaction, or a
 * session whose state the application's database user may not see, settles nothing until it is
 * gone: the cursor then waits, and reads start lower, never wrong. A long-running transaction in the
 * same database holds the cursor back the same way; when it ends, the cursor catches up.
 *
 * <p>The other rows below the cursor are accounted for elsewhere: a message waiting for its retry is
 * read through its own index every batch, and when it becomes due the cursor is rewound to it, so the
 * rest of its group (which the reads skipped while it waited) is read again in order; rows held back
 * within a batch pin the cursor below them; a change of owner, of the partition layout, or an admin
 * operation on the partition resets it to the start.
 *
 * <p>Databases without such snapshots (MariaDB, H2) always read from the start ({@link
 * #disabled()}); MariaDB's purge removes deleted rows in the background, so its reads stay short.
 * Not thread-safe: owned by one partition worker.
 */
final class PartitionCursor {

  /** Checkpoints waiting to settle; more are dropped (conservatively: nothing is settled by them). */
  private static final int MAX_CHECKPOINTS = 64;

  private final boolean enabled;
  private long scanFrom;
  private long settled;
  private final ArrayDeque<long[]> checkpoints = new ArrayDeque<>();

  private PartitionCursor(boolean enabled) {
    this.enabled = enabled;
  }

  static PartitionCursor settledReads() {
    return new PartitionCursor(true);
  }

  static PartitionCursor disabled() {
    return new PartitionCursor(false);
  }

  /** The first id the next read considers. */
  long scanFrom() {
    return scanFrom;
  }

  /** The highest id known to be settled. */
  long settled() {
    return settled;
  }

  /**
   * Whether the next read has to find out when the oldest running transaction began: only to settle
   * a checkpoint this cursor holds. Without one the answer would change nothing (a read's own
   * checkpoint can only settle at a later read), and on PostgreSQL asking costs a copy of every
   * backend's status per batch; a drain with nothing published meanwhile asks twice, then never.
   */
  boolean needsRunningProbe() {
    return enabled && !checkpoints.isEmpty();
  }

  /** Forgets everything: the next read starts at the first row. */
  void reset() {
    scanFrom = 0;
    settled = 0;
    checkpoints.clear();
  }

  /**
   * Computes the cursor after a batch, without changing this one: applied with {@link #apply} only
   * once the batch's transaction committed.
   *
   * @param sequenceValue the message sequence's last value, read by the claim
   * @param readAtMicros the database clock at the read, after the claim read the sequence
   * @param oldestRunningMicros when the oldest transaction still running at the read began (the
   *     read's clock if none; 0 if that cannot be told)
   * @param reachedUpTo every pending row up to this id was read and is relayed, dead, waiting for a
   *     retry or held back by one ({@code Long.MAX_VALUE} if the read reached the end)
   * @param lowestHeldBack the lowest id that this batch left pending without a retry time (held back
   *     behind a failure), or {@code Long.MAX_VALUE}
   */
  Proposal propose(long sequenceValue, long readAtMicros, long oldestRunningMicros, long reachedUpTo,
      long lowestHeldBack) {
    if (!enabled) {
      return new Proposal(0, 0, new ArrayDeque<>());
    }
    long newSettled = settled;
    ArrayDeque<long[]> pending = new ArrayDeque<>(checkpoints);
    // A checkpoint (S, t) is settled once every running transaction began after t.
    while (!pending.isEmpty() && pending.peekFirst()[1] < oldestRunningMicros) {
      newSettled = Math.max(newSettled, pending.pollFirst()[0]);
    }
    if (readAtMicros > 0 && sequenceValue > newSettled) {
      pending.addLast(new long[] {sequenceValue, readAtMicros});
      while (pending.size() > MAX_CHECKPOINTS) {
        pending.pollFirst();
      }
    }
    long next = reachedUpTo == Long.MAX_VALUE ? Long.MAX_VALUE : reachedUpTo + 1;
    next = Math.min(next, newSettled + 1);
    next = Math.min(next, lowestHeldBack);
    // Never move back on our own account: a rewind is explicit (rewindTo), and the scan already
    // covered everything from the current start.
    next = Math.max(next, Math.min(scanFrom, lowestHeldBack));
    return new Proposal(next, newSettled, pending);
  }

  void apply(Proposal proposal) {
    if (!enabled) {
      return;
    }
    scanFrom = proposal.scanFrom();
    settled = proposal.settled();
    checkpoints.clear();
    checkpoints.addAll(proposal.checkpoints());
  }

  /** Moves the start back to a message whose retry has come, so that its group is read again from it. */
  void rewindTo(long id) {
    if (enabled && id < scanFrom) {
      scanFrom = id;
    }
  }

  record Proposal(long scanFrom, long settled, ArrayDeque<long[]> checkpoints) {}
}
