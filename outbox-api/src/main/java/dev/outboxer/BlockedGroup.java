package dev.outboxer;

import java.time.Instant;

/**
 * A group whose oldest pending message waits for a retry, or for its time (a delayed message, see
 * {@link OutboxMessage#notBefore()}), holding back the rest of the group (in {@link Ordering#TOTAL
 * total} ordering: the whole outbox), as listed by {@link OutboxAdmin#blockedGroups(String, int)}.
 *
 * @param groupKey the group key; {@code null} for an ungrouped message that waits for its retry
 *     or its time (it holds back nothing but itself)
 * @param messageId the id of the waiting message
 * @param partition its partition
 * @param attempts how many attempts failed so far; 0 for a delayed message that waits for its time
 * @param nextAttemptAt when it is tried again, or first tried (a delayed message)
 * @param lastError the last failure's description; {@code null} for a delayed message not tried yet
 */
public record BlockedGroup(
    String groupKey, long messageId, int partition, int attempts, Instant nextAttemptAt, String lastError) {}
