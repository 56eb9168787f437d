package dev.outboxer;

import java.time.Instant;

/**
 * A group whose oldest pending message waits for a retry, holding back the rest of the group (in
 * {@link Ordering#TOTAL total} ordering: the whole outbox), as listed by {@link
 * OutboxAdmin#blockedGroups(String, int)}.
 *
 * @param groupKey the group key; {@code null} for an ungrouped message that waits for its retry
 *     (it holds back nothing but itself)
 * @param messageId the id of the waiting message
 * @param partition its partition
 * @param attempts how many attempts failed so far
 * @param nextAttemptAt when it is tried again
 * @param lastError the last failure's description
 */
public record BlockedGroup(
    String groupKey, long messageId, int partition, int attempts, Instant nextAttemptAt, String lastError) {}
