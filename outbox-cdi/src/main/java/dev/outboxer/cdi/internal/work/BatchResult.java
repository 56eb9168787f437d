package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import dev.outboxer.cdi.internal.store.BatchStatements;

/**
 * What one batch transaction did.
 *
 * @param claimed whether this worker got the partition (false: another worker holds it, or the
 *     partition no longer exists in the layout in force)
 * @param read rows handed to the relay
 * @param relayed rows deleted by the committed transaction (confirmed by the relay and still there)
 * @param failed failed attempts recorded (including {@code died})
 * @param died messages that used up max-attempts in this batch
 * @param earliestRetry the soonest retry time set in this batch, or null
 * @param relayTime how long the relay call took
 * @param partitionCount the outbox's partition count in force, as the claim read it
 * @param layoutVersion the version of the partition layout in force
 * @param fencingToken the claim's token, 0 if not claimed
 * @param moreReady whether the read was cut off by the batch size (more rows are ready)
 * @param waiting the messages of the partition that wait for a retry, holding back their groups
 */
record BatchResult(boolean claimed, int read, int relayed, int failed, int died, Instant earliestRetry,
    Duration relayTime, int partitionCount, int layoutVersion, long fencingToken, boolean moreReady,
    List<BatchStatements.Waiting> waiting) {

  /** A batch that was claimed and handed to the relay, whatever became of it. */
  static BatchResult relayed(BatchStatements.Claim claim, int read, int relayed, int failed, int died,
      Instant earliestRetry, Duration relayTime, boolean moreReady, List<BatchStatements.Waiting> waiting) {
    return new BatchResult(true, read, relayed, failed, died, earliestRetry, relayTime, claim.partitionCount(),
        claim.layoutVersion(), claim.fencingToken(), moreReady, waiting);
  }

  static BatchResult notClaimed(int partitionCount, int layoutVersion) {
    return new BatchResult(false, 0, 0, 0, 0, null, Duration.ZERO, partitionCount, layoutVersion, 0, false, List.of());
  }

  static BatchResult empty(int partitionCount, int layoutVersion, long fencingToken,
      List<BatchStatements.Waiting> waiting) {
    return new BatchResult(true, 0, 0, 0, 0, null, Duration.ZERO, partitionCount, layoutVersion, fencingToken, false,
        waiting);
  }
}
