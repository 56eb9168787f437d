package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.time.Instant;

/**
 * What one batch transaction did, after it committed.
 *
 * @param claimed whether this worker got the partition (false: another worker holds it)
 * @param read rows read
 * @param confirmed rows relayed and deleted
 * @param failed failed attempts recorded (including {@code died})
 * @param died messages that used up max-attempts in this batch
 * @param earliestRetry the soonest retry time set in this batch, or null
 * @param relayTime how long the relay call took
 */
record BatchResult(boolean claimed, int read, int confirmed, int failed, int died, Instant earliestRetry, Duration relayTime) {

  static final BatchResult NOT_CLAIMED = new BatchResult(false, 0, 0, 0, 0, null, Duration.ZERO);
  static final BatchResult EMPTY = new BatchResult(true, 0, 0, 0, 0, null, Duration.ZERO);
}
