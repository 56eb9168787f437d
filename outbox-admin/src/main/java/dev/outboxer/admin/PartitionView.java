package dev.outboxer.admin;

import jakarta.json.bind.annotation.JsonbNillable;
import dev.outboxer.PartitionStatus;
import java.time.Instant;

/**
 * The JSON answer for one partition, as {@link dev.outboxer.OutboxAdmin#partitions} gives it. The
 * owner is the node of the last claim (a claim lasts one batch), not a lease it still holds.
 *
 * @param partition the partition number, from 0
 * @param owner the node id of the last claim, {@code null} if never claimed
 * @param fencingToken the token of the last claim, 0 if never claimed
 * @param lastRun when the last claim was taken (ISO-8601), {@code null} if never
 * @param pending messages waiting in this partition
 * @param retrying of those, messages waiting for a retry
 *
 * <p>Properties without a value are written as {@code null}, not left out.
 */
@JsonbNillable
public record PartitionView(int partition, String owner, long fencingToken, String lastRun, long pending,
    long retrying) {

  static PartitionView of(PartitionStatus status) {
    return new PartitionView(status.partition(), status.owner(), status.fencingToken(), text(status.lastClaimedAt()),
        status.pending(), status.retrying());
  }

  static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
