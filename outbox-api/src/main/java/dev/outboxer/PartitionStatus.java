package dev.outboxer;

import java.time.Instant;

/**
 * One partition of an outbox as the database records it, listed by {@link
 * OutboxAdmin#partitions(String)}. The owner and times are those of the last claim: a claim lasts
 * one batch transaction, so an owner is the node that ran the partition's latest batch, not a lease
 * it still holds.
 *
 * @param partition the partition number, from 0
 * @param owner the node id ({@code outbox.node-id}) of the last claim, or {@code null} if the
 *     partition was never claimed
 * @param fencingToken the token of the last claim, 0 if never claimed
 * @param lastClaimedAt when the last claim was taken, or {@code null}
 * @param pending messages waiting in this partition, retries included
 * @param retrying pending messages that failed at least once and wait for their retry time
 * @param preparedBy the prepared (two-phase) transaction that holds the partition, or {@code null}:
 *     while it is there no worker can claim the partition, see {@link PreparedTransaction} for the
 *     way out (PostgreSQL only; always {@code null} on other databases)
 */
public record PartitionStatus(int partition, String owner, long fencingToken, Instant lastClaimedAt, long pending,
    long retrying, PreparedTransaction preparedBy) {

  /** A partition that no prepared transaction holds. */
  public PartitionStatus(int partition, String owner, long fencingToken, Instant lastClaimedAt, long pending,
      long retrying) {
    this(partition, owner, fencingToken, lastClaimedAt, pending, retrying, null);
  }
}
