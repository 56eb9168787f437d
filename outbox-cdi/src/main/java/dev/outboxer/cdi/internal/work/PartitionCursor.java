package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

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
 * is not <i>settled</i>. On PostgreSQL every claim reads the message sequence's last value S, and a
 * claim that has a checkpoint to settle also lists the transactions running in the database on other
 * connections, each by its session and start (a <i>probe</i>). A checkpoint S is <i>armed</i> by the
 * first probe after the claim that read S: every transaction holding an id up to S drew it before
 * that probe, so it is either listed by it or had ended before it. It <i>settles</i> at the first
 * later probe that finds none of the listed transactions still running (a transaction is the same
 * only with the same session and the same start): all of those have ended, and the read after that
 * probe (a later statement, with a later snapshot) sees their rows. Every id up to S is then settled,
 * committed and visible, or gone. A probe that finds no transaction running settles the checkpoint
 * it arms at once. Nothing here compares times: a clock set back (an NTP step on a virtual
 * machine) cannot make a transaction that began before S look as if it began after it.
 *
 * <p>The probe comes before the read's snapshot: made by the read itself, it could find a
 * transaction ended whose commit came just after the read's snapshot, and the cursor passed rows
 * that read had not seen (OrderingRulesTest with the CPU saturated stranded 2 to 13 messages in
 * about 1 run of 8 that way). It reads the sessions before the prepared (two-phase) transactions: a
 * transaction that prepares in between is then listed as running, or found prepared, or committed
 * before the read; in the other order it can be in neither list (SteadyPublishingLossTest lost the
 * rows of one publishing transaction in about 2 runs of 7 that way). The read's snapshot comes after
 * the probe only at READ COMMITTED: above it, the transaction's one snapshot is the claim's, taken
 * before the probe ran, so the probe reports that it cannot tell and nothing settles. A prepared
 * two-phase transaction, or a session whose state the application's database user may not see,
 * settles nothing until it is gone: the cursor then waits, and reads start lower, never wrong. A
 * long-running transaction in the same database holds the cursor back the same way; when it ends,
 * the cursor catches up.
 *
 * <p>The other rows below the cursor are accounted for elsewhere: a message waiting for its retry is
 * read through its own index every batch, and when it becomes due the cursor is rewound to it, so the
 * rest of its group (which the reads skipped while it waited) is read again in order; rows held back
 * within a batch pin the cursor below them; a change of owner, of the partition layout (its version,
 * which every claim reads), or an admin operation on the partition resets it to the start.
 *
 * <p>A safety net under all of this: every {@link #SWEEP_INTERVAL} the next read starts at the
 * partition's first row anyway (a <i>sweep</i>). Should a row ever be found below where reads
 * started, by a hole in the argument above, it is relayed then (late, possibly after later messages
 * of its group) and named in a WARNING, instead of waiting for good. On PostgreSQL without
 * autovacuum a read from the first row walks the rows deleted since the last vacuum; once every
 * interval, that is a small price.
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
  private final ArrayDeque<Checkpoint> checkpoints = new ArrayDeque<>();
  /** During a sweep: where reads would have started (rows below it are left behind); else -1. */
  private long sweptFrom = -1;
  /** When the next sweep is due; null until the first read. */
  private Instant nextSweep;
  /** The partition layout's version at the last claim; -1 before the first. */
  private int layoutVersion = -1;

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

  /** How often a read starts at the partition's first row anyway, to find rows left behind. */
  static final Duration SWEEP_INTERVAL = Duration.ofSeconds(10);

  /**
   * Starts a sweep if one is due: the next read starts at the first row, and {@link #leftBehind}
   * names the fresh rows it finds below where reads would have started. Called before each read.
   *
   * @return whether a sweep started
   */
  boolean sweepIfDue(Instant now) {
    if (!enabled) {
      return false;
    }
    if (nextSweep == null || nextSweep.isAfter(now.plus(SWEEP_INTERVAL))) {
      // The first read, or the clock was set back: the next sweep an interval from now.
      nextSweep = now.plus(SWEEP_INTERVAL);
      return false;
    }
    if (now.isBefore(nextSweep)) {
      return false;
    }
    nextSweep = now.plus(SWEEP_INTERVAL);
    if (scanFrom <= 0 || sweptFrom >= 0) {
      return false;
    }
    sweptFrom = scanFrom;
    scanFrom = 0;
    return true;
  }

  /**
   * Where a due retry must lie below to rewind the cursor to it: during a sweep, where reads would
   * have started; otherwise where they start.
   */
  long rewindBelow() {
    return sweptFrom >= 0 ? sweptFrom : scanFrom;
  }

  /**
   * The fresh rows (no retry time) of a read below where reads would have started before the
   * current sweep: rows the cursor had passed although they were pending. Empty outside a sweep.
   */
  List<Long> leftBehind(List<StoredMessage> rows) {
    List<Long> ids = new ArrayList<>();
    if (sweptFrom >= 0) {
      for (StoredMessage row : rows) {
        if (row.id() < sweptFrom && row.nextAttemptAt() == null) {
          ids.add(row.id());
        }
      }
    }
    return ids;
  }

  /**
   * Notes the layout version a claim found; true if it changed since the last claim. A change of
   * the partition count moves pending messages between partitions with the ids they have, below
   * where reads of the partition that receives them start: the caller then resets the cursor.
   */
  boolean layoutChanged(int version) {
    boolean changed = layoutVersion != version;
    layoutVersion = version;
    return changed;
  }

  /** Checkpoints waiting to be armed or to settle. */
  int checkpointCount() {
    return checkpoints.size();
  }

  /**
   * Whether the next claim has to list the running transactions: only to arm or settle a checkpoint
   * this cursor holds. Without one the answer would change nothing (a claim's own checkpoint is armed
   * by a later probe), and on PostgreSQL asking costs a copy of every backend's status per batch; a
   * drain with nothing published meanwhile asks once or twice, then never.
   */
  boolean needsRunningProbe() {
    return enabled && !checkpoints.isEmpty();
  }

  /** Forgets everything: the next read starts at the first row. */
  void reset() {
    scanFrom = 0;
    settled = 0;
    sweptFrom = -1;
    checkpoints.clear();
  }

  /**
   * Computes the cursor after a batch, without changing this one: applied with {@link #apply} only
   * once the batch's transaction committed.
   *
   * @param sequenceValue the message sequence's last value, read by the claim
   * @param running the transactions running on other connections, found by the claim before the
   *     read's snapshot: an identity for each (session and start), sorted; null if it cannot be told
   *     or was not asked for
   * @param reachedUpTo every pending row up to this id was read and is relayed, dead, waiting for a
   *     retry or held back by one ({@code Long.MAX_VALUE} if the read reached the end)
   * @param lowestHeldBack the lowest id that this batch left pending without a retry time (held back
   *     behind a failure), or {@code Long.MAX_VALUE}
   */
  Proposal propose(long sequenceValue, long[] running, long reachedUpTo, long lowestHeldBack) {
    if (!enabled) {
      return new Proposal(0, 0, new ArrayDeque<>());
    }
    long newSettled = settled;
    ArrayDeque<Checkpoint> pending = new ArrayDeque<>(checkpoints.size() + 1);
    for (Checkpoint checkpoint : checkpoints) {
      // This probe came after the claims that read the unarmed checkpoints' sequence values.
      pending.addLast(checkpoint.armed() || running == null ? checkpoint : checkpoint.armedWith(running));
    }
    if (running != null) {
      while (!pending.isEmpty() && pending.peekFirst().settledBy(running)) {
        newSettled = Math.max(newSettled, pending.pollFirst().sequenceValue());
      }
    }
    if (sequenceValue > newSettled && (pending.isEmpty() || sequenceValue > pending.peekLast().sequenceValue())) {
      pending.addLast(new Checkpoint(sequenceValue, null));
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
    if (sweptFrom >= 0 && scanFrom >= sweptFrom) {
      sweptFrom = -1; // the sweep has come back to where reads started before it
    }
    checkpoints.clear();
    checkpoints.addAll(proposal.checkpoints());
  }

  /** Moves the start back to a message whose retry has come, so that its group is read again from it. */
  void rewindTo(long id) {
    if (enabled && id < scanFrom) {
      scanFrom = id;
    }
    if (enabled && sweptFrom >= 0 && id < sweptFrom) {
      sweptFrom = id; // the group's rows above it were skipped while it waited: not left behind
    }
  }

  record Proposal(long scanFrom, long settled, ArrayDeque<Checkpoint> checkpoints) {}

  /**
   * A sequence value S and, once armed, the transactions that were running at the first probe after
   * S was read (sorted identities; null until armed).
   */
  record Checkpoint(long sequenceValue, long[] runningAtArming) {

    boolean armed() {
      return runningAtArming != null;
    }

    Checkpoint armedWith(long[] running) {
      return new Checkpoint(sequenceValue, running);
    }

    /** Whether none of the transactions running at arming runs any more. */
    boolean settledBy(long[] running) {
      if (runningAtArming == null) {
        return false;
      }
      for (long transaction : runningAtArming) {
        if (java.util.Arrays.binarySearch(running, transaction) >= 0) {
          return false;
        }
      }
      return true;
    }
  }
}
