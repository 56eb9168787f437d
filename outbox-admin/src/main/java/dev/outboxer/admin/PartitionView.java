package dev.outboxer.admin;

import jakarta.json.bind.annotation.JsonbNillable;
import dev.outboxer.PartitionStatus;
import dev.outboxer.PreparedTransaction;
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
 * @param preparedBy the prepared (two-phase) transaction that holds the partition: no worker can
 *     claim it until that transaction is committed or rolled back (see {@link
 *     dev.outboxer.PreparedTransaction}); {@code null} if none does (always on databases other than
 *     PostgreSQL)
 *
 * <p>Properties without a value are written as {@code null}, not left out.
 */
@JsonbNillable
public record PartitionView(int partition, String owner, long fencingToken, String lastRun, long pending,
    long retrying, PreparedView preparedBy) {

  /**
   * A prepared transaction holding a partition, as {@code pg_prepared_xacts} names it.
   *
   * @param gid its global id, for {@code COMMIT PREPARED 'gid'} or {@code ROLLBACK PREPARED 'gid'}
   * @param preparedAt when it was prepared (ISO-8601)
   * @param owner the database user that prepared it
   * @param database the database it belongs to
   */
  @JsonbNillable
  public record PreparedView(String gid, String preparedAt, String owner, String database) {}

  static PartitionView of(PartitionStatus status) {
    PreparedTransaction held = status.preparedBy();
    return new PartitionView(status.partition(), status.owner(), status.fencingToken(), text(status.lastClaimedAt()),
        status.pending(), status.retrying(), held == null ? null
            : new PreparedView(held.gid(), text(held.preparedAt()), held.owner(), held.database()));
  }

  static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
