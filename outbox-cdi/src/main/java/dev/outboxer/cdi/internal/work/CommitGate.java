package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The commit of a transaction that published to an idle partition of this node, as seen by the
 * partition's worker that was started while that commit ran. The worker begins its batch and claims
 * the partition meanwhile (neither waits for the publisher), then waits here before it reads, so
 * that its read sees the committed message: what is left after the commit is one round trip.
 *
 * <p>It changes when a batch reads, never what a batch may do: a worker that waited {@link
 * #MAX_WAIT} gives up, reads what is committed by then and ends its batch as usual; the publisher
 * then wakes the worker as if it had never been primed ({@link #completed} says so). Thread-safe.
 */
public final class CommitGate {

  /**
   * How long a primed worker holds its claim waiting for the publisher's commit at most: commits
   * take about a millisecond; a slow one (a second resource in two-phase commit) is not waited for.
   */
  static final Duration MAX_WAIT = Duration.ofMillis(100);

  private static final int WAITING = 0;
  private static final int COMPLETED = 1;
  private static final int GAVE_UP = 2;

  private final AtomicInteger state = new AtomicInteger(WAITING);
  private final CountDownLatch completed = new CountDownLatch(1);

  /**
   * The publishing transaction completed (committed or not). True if the primed worker will read
   * after this point, so that it sees what committed; false if it gave up waiting, in which case the
   * caller wakes the worker as usual.
   */
  public boolean completed() {
    boolean inTime = state.compareAndSet(WAITING, COMPLETED);
    completed.countDown();
    return inTime;
  }

  /** Waits for {@link #completed}, at most {@link #MAX_WAIT}; false (and the gate given up) if it did not come. */
  boolean await() throws InterruptedException {
    if (completed.await(MAX_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
      return true;
    }
    return !state.compareAndSet(WAITING, GAVE_UP);
  }

  /** The primed run ended without reaching the gate (a failed claim, a stop): the publisher must wake the worker. */
  void abandon() {
    state.compareAndSet(WAITING, GAVE_UP);
  }
}
