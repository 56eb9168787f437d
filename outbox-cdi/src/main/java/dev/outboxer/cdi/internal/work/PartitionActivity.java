package dev.outboxer.cdi.internal.work;

import dev.outboxer.spi.Failures;
import java.time.Instant;

/**
 * What this node's worker of one partition did last, for the supervisor, the health checks and
 * operators: when it last ran, whether it is running now, whether it held the partition, its last
 * fencing token and its last failure. Written by the worker's thread, read by any.
 */
public final class PartitionActivity {

  private final String outbox;
  private final int partition;
  private volatile long runStartedNanos;
  private volatile long runEndedNanos = System.nanoTime();
  private volatile boolean running;
  private volatile Instant lastRunEnded;
  private volatile boolean lastClaimed;
  private volatile long lastFencingToken;
  private volatile String lastFailure;

  PartitionActivity(String outbox, int partition) {
    this.outbox = outbox;
    this.partition = partition;
  }

  public String outbox() {
    return outbox;
  }

  public int partition() {
    return partition;
  }

  void runStarted() {
    runStartedNanos = System.nanoTime();
    running = true;
  }

  void runEnded() {
    running = false;
    runEndedNanos = System.nanoTime();
    lastRunEnded = Instant.now();
  }

  void batch(boolean claimed, long fencingToken) {
    lastClaimed = claimed;
    if (claimed) {
      lastFencingToken = fencingToken;
    }
    lastFailure = null;
  }

  void failed(Throwable failure) {
    lastFailure = Failures.describe(failure);
  }

  /** Whether a run is going on right now. */
  public boolean running() {
    return running;
  }

  /** Nanoseconds (System.nanoTime) since the worker last did anything: the end of its last run, or the start of the current one. */
  public long sinceLastActivityNanos() {
    long now = System.nanoTime();
    return running ? now - runStartedNanos : now - runEndedNanos;
  }

  /** How long the current run has lasted, 0 if none is running. */
  public long currentRunNanos() {
    return running ? System.nanoTime() - runStartedNanos : 0;
  }

  /** When the last run ended, or null. */
  public Instant lastRunEnded() {
    return lastRunEnded;
  }

  public boolean lastClaimed() {
    return lastClaimed;
  }

  public long lastFencingToken() {
    return lastFencingToken;
  }

  /** The last batch failure, or null if the last batch succeeded. */
  public String lastFailure() {
    return lastFailure;
  }
}
