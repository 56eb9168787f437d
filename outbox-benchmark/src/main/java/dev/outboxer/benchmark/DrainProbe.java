package dev.outboxer.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Watches one drain: when the first batch was handed over, when the last one committed, and what
 * committed. It checks as it goes that every message commits exactly once and, where the contender
 * promises it, that the messages of a group commit in increasing key order. Keys are ids (Outboxer,
 * raw) or sequence numbers (gruelbox) within {@code [firstKey, firstKey + span)}.
 *
 * <p>Thread-safe: workers of several partitions report at once.
 */
final class DrainProbe {

  private static final int PROBLEMS_KEPT = 5;

  private final long firstKey;
  private final long span;
  private final boolean checkOrder;
  private final BitSet seen = new BitSet();
  private final Map<String, Long> lastKeyOfGroup = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private long problemCount;
  private long committed;
  private long rolledBackBatches;
  private long rolledBackMessages;
  private volatile long firstHandedNanos;
  private long lastCommitNanos;

  DrainProbe(long firstKey, long span, boolean checkOrder) {
    if (span > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a drain of " + span + " keys is more than the probe can track");
    }
    this.firstKey = firstKey;
    this.span = span;
    this.checkOrder = checkOrder;
  }

  /** A batch is in the contender's hands; the first call starts the clock. */
  void handed() {
    if (firstHandedNanos == 0) {
      synchronized (this) {
        if (firstHandedNanos == 0) {
          firstHandedNanos = System.nanoTime();
        }
      }
    }
  }

  /** Messages whose deletion committed, in the order they were read; {@code groups[i]} is the group of {@code keys[i]}. */
  synchronized void committed(long[] keys, String[] groups) {
    long now = System.nanoTime();
    if (firstHandedNanos == 0) {
      firstHandedNanos = now;
    }
    for (int i = 0; i < keys.length; i++) {
      long offset = keys[i] - firstKey;
      if (offset < 0 || offset >= span) {
        problem("message " + keys[i] + " was not part of this backlog [" + firstKey + ", " + (firstKey + span) + ")");
        continue;
      }
      if (seen.get((int) offset)) {
        problem("message " + keys[i] + " committed twice");
        continue;
      }
      seen.set((int) offset);
      committed++;
      if (checkOrder && groups[i] != null) {
        Long previous = lastKeyOfGroup.put(groups[i], keys[i]);
        if (previous != null && previous > keys[i]) {
          problem("group " + groups[i] + ": message " + keys[i] + " committed after " + previous);
        }
      }
    }
    lastCommitNanos = now;
    notifyAll();
  }

  /**
   * A batch whose records the contender confirmed but whose transaction did not commit (a deadlock,
   * a timeout, a failed commit): its messages were handed over and will be handed over again.
   */
  synchronized void rolledBack(int messages) {
    rolledBackBatches++;
    rolledBackMessages += messages;
  }

  /** Batches confirmed by the relay whose transaction then rolled back. */
  synchronized long rolledBackBatches() {
    return rolledBackBatches;
  }

  /** Messages of those batches: each was handed to the relay once more than it committed. */
  synchronized long rolledBackMessages() {
    return rolledBackMessages;
  }

  private void problem(String text) {
    problemCount++;
    if (problems.size() < PROBLEMS_KEPT) {
      problems.add(text);
    }
  }

  /** Waits until {@code expected} messages committed; false if {@code max} passed first. */
  synchronized boolean await(long expected, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (committed < expected) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  synchronized long committed() {
    return committed;
  }

  synchronized boolean seen(long key) {
    long offset = key - firstKey;
    return offset >= 0 && offset < span && seen.get((int) offset);
  }

  /** Messages per second from the first batch handed over to the last commit. */
  synchronized double rate() {
    double seconds = seconds();
    return seconds <= 0 ? 0 : committed / seconds;
  }

  synchronized double seconds() {
    return firstHandedNanos == 0 || lastCommitNanos == 0 ? 0 : (lastCommitNanos - firstHandedNanos) / 1e9;
  }

  /** What went wrong: duplicates, strangers, groups out of order; empty if nothing did. */
  synchronized List<String> problems() {
    List<String> all = new ArrayList<>(problems);
    if (problemCount > problems.size()) {
      all.add("... and " + (problemCount - problems.size()) + " more");
    }
    return all;
  }
}
