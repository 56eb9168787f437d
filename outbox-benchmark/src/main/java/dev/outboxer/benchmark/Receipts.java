package dev.outboxer.benchmark;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** When each message of a latency run reached the relay (or gruelbox's task), by key. Thread-safe. */
final class Receipts implements Arrivals {

  private final Map<Long, Long> nanosByKey = new HashMap<>();

  @Override
  public synchronized void received(long key) {
    nanosByKey.putIfAbsent(key, System.nanoTime());
    notifyAll();
  }

  /** The System.nanoTime at which the message arrived; fails if it did not within {@code max}. */
  synchronized long await(long key, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    Long nanos;
    while ((nanos = nanosByKey.get(key)) == null) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException("Message " + key + " did not reach the relay within " + max.toMillis() + " ms;"
            + " the worker that should relay it is stuck or not running");
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return nanos;
  }
}
