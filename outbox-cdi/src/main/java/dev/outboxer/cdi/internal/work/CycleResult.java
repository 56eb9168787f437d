package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import dev.outboxer.cdi.internal.store.BatchStatements;

/**
 * What one cycle of a partition worker did: claim, read, relay and finish, in one batch transaction.
 *
 * @param claimed whether this worker got the partition (false: another worker holds it, or the
 *     partition no longer exists in the layout in force)
 * @param read rows handed to the relay
 * @param relayed rows deleted by the committed transaction (confirmed by the relay and still there)
 * @param failed failed attempts recorded (including {@code died})
 * @param died messages that died in this batch: used up max-attempts, or failed permanently
 * @param earliestRetry the soonest retry time set in this batch, or null
 * @param relayTime how long the relay call took
 * @param partitionCount the outbox's partition count in force, as the claim read it
 * @param layoutVersion the version of the partition layout in force
 * @param fencingToken the claim's token, 0 if not claimed
 * @param moreReady whether the read was cut off by the batch size (more rows are ready)
 * @param waiting the messages of the partition that wait for a retry, holding back their groups
 */
record CycleResult(boolean claimed, int read, int relayed, int failed, int died, Instant earliestRetry,
    Duration relayTime, int partitionCount, int layoutVersion, long fencingToken, boolean moreReady,
    List<BatchStatements.Waiting> waiting) {

  /** A batch that was claimed and handed to the relay, whatever became of it. */
  static CycleResult relayed(BatchStatements.Claim claim, int read, int relayed, int failed, int died,
      Instant earliestRetry, Duration relayTime, boolean moreReady, List<BatchStatements.Waiting> waiting) {
    return new CycleResult(true, read, relayed, failed, died, earliestRetry, relayTime, claim.partitionCount(),
        claim.layoutVersion(), claim.fencingToken(), moreReady, waiting);
  }

  static CycleResult notClaimed(int partitionCount, int layoutVersion) {
    return new CycleResult(false, 0, 0, 0, 0, null, Duration.ZERO, partitionCount, layoutVersion, 0, false, List.of());
  }

  static CycleResult empty(int partitionCount, int layoutVersion, long fencingToken,
      List<BatchStatements.Waiting> waiting) {
    return new CycleResult(true, 0, 0, 0, 0, null, Duration.ZERO, partitionCount, layoutVersion, fencingToken, false,
        waiting);
  }
}
