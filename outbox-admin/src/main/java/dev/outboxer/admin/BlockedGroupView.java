package dev.outboxer.admin;

import jakarta.json.bind.annotation.JsonbNillable;
import dev.outboxer.BlockedGroup;

/**
 * The JSON answer for one blocked group: its oldest pending message waits for a retry and holds
 * back the rest of the group, as {@link dev.outboxer.OutboxAdmin#blockedGroups} gives it.
 *
 * @param groupKey the group key, {@code null} for an ungrouped message (it holds back nothing else)
 * @param messageId the waiting message
 * @param partition its partition
 * @param attempts how many attempts failed
 * @param nextAttempt when it is tried again (ISO-8601)
 * @param lastError the last failure
 *
 * <p>Properties without a value are written as {@code null}, not left out.
 */
@JsonbNillable
public record BlockedGroupView(String groupKey, long messageId, int partition, int attempts, String nextAttempt,
    String lastError) {

  static BlockedGroupView of(BlockedGroup group) {
    return new BlockedGroupView(group.groupKey(), group.messageId(), group.partition(), group.attempts(),
        PartitionView.text(group.nextAttemptAt()), group.lastError());
  }
}
