package dev.outboxer.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The books of a steady traffic run: which message ids were published (their transaction
 * committed), which reached the relay, how often, and each message's latency from just before its
 * publishing commit to its first arrival, kept per time window (by publishing time) for
 * percentiles. Ids are tracked as offsets above a base read from the sequence before the run, in
 * bit sets: a 30-minute run at 40,000 msg/s costs a few MB, not a map of every id.
 *
 * <p>Thread-safe: publisher threads and the workers' relay threads report at once.
 */
final class TrafficLedger implements Arrivals {

  private final long baseId;
  private final long startNanos;
  private final long windowNanos;
  private final FloatSamples[] windows;
  /** Published but not yet arrived: id to the System.nanoTime just before its transaction's commit. */
  private final Map<Long, Long> inFlight = new ConcurrentHashMap<>();
  private final BitSet published = new BitSet();
  private final BitSet relayed = new BitSet();
  private long publishedCount;
  private long relayedCount;
  private long duplicates;
  private long strangers;

  /**
   * @param baseId every id the run publishes is above it
   * @param startNanos the System.nanoTime at which the first window begins
   * @param windowNanos the length of a window
   * @param windowCount windows; a message published after the last one's end counts in the last
   */
  TrafficLedger(long baseId, long startNanos, long windowNanos, int windowCount) {
    this.baseId = baseId;
    this.startNanos = startNanos;
    this.windowNanos = windowNanos;
    this.windows = new FloatSamples[windowCount];
    for (int i = 0; i < windowCount; i++) {
      windows[i] = new FloatSamples();
    }
  }

  /** Before the commit of a transaction that published {@code id}: from here on the relay may see it. */
  void publishing(long id, long beforeCommitNanos) {
    inFlight.put(id, beforeCommitNanos);
  }

  /** The transaction committed. */
  synchronized void committed(long id) {
    int offset = offset(id);
    if (!published.get(offset)) {
      published.set(offset);
      publishedCount++;
    }
  }

  /** The transaction did not commit: the message does not exist. */
  void rolledBack(long id) {
    inFlight.remove(id);
  }

  @Override
  public void received(long id) {
    long now = System.nanoTime();
    Long beforeCommit = inFlight.remove(id);
    synchronized (this) {
      if (id <= baseId) {
        strangers++;
        return;
      }
      int offset = offset(id);
      if (relayed.get(offset)) {
        duplicates++;
        return;
      }
      relayed.set(offset);
      relayedCount++;
      if (beforeCommit != null) {
        int window = (int) Math.min(windows.length - 1, Math.max(0, (beforeCommit - startNanos) / windowNanos));
        windows[window].add((float) ((now - beforeCommit) / 1e6));
      }
    }
  }

  private int offset(long id) {
    long offset = id - baseId;
    if (offset <= 0 || offset > Integer.MAX_VALUE) {
      throw new IllegalStateException("message id " + id + " is outside the run's range above " + baseId);
    }
    return (int) offset;
  }

  synchronized long publishedCount() {
    return publishedCount;
  }

  synchronized long relayedCount() {
    return relayedCount;
  }

  /** Deliveries of a message that had arrived already (at least once: a batch rolled back after the relay had it). */
  synchronized long duplicates() {
    return duplicates;
  }

  /** Arrivals of ids the run did not publish (ids at or below the base). */
  synchronized long strangers() {
    return strangers;
  }

  /** Published (committed) messages that never reached the relay; at most {@code limit} ids listed. */
  synchronized List<Long> lost(int limit) {
    BitSet missing = (BitSet) published.clone();
    missing.andNot(relayed);
    List<Long> ids = new ArrayList<>();
    for (int i = missing.nextSetBit(0); i >= 0 && ids.size() < limit; i = missing.nextSetBit(i + 1)) {
      ids.add(baseId + i);
    }
    return ids;
  }

  synchronized long lostCount() {
    BitSet missing = (BitSet) published.clone();
    missing.andNot(relayed);
    return missing.cardinality();
  }

  /** Arrived messages whose publishing transaction was not seen to commit (a commit that failed but happened). */
  synchronized long relayedUnpublished() {
    BitSet extra = (BitSet) relayed.clone();
    extra.andNot(published);
    return extra.cardinality();
  }

  /** The latencies (ms) of the messages published in one window, sorted; empty if none arrived. */
  synchronized float[] latencies(int window) {
    return windows[window].sorted();
  }

  int windowCount() {
    return windows.length;
  }

  /** The nearest-rank percentile of sorted samples, NaN for none (as {@link Stats#percentile}). */
  static double percentile(float[] sorted, double percent) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** A growable array of floats: a million samples in 4 MB instead of a list of boxed doubles. */
  private static final class FloatSamples {
    private float[] values = new float[1024];
    private int size;

    void add(float value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    float[] sorted() {
      float[] copy = Arrays.copyOf(values, size);
      Arrays.sort(copy);
      return copy;
    }
  }
}
