package dev.outboxer;

import java.time.Instant;

/**
 * A message that used up its {@code max-attempts} and is no longer relayed, as listed by {@link
 * OutboxAdmin#dead(String, int)}.
 *
 * @param id the message id, kept if it is {@linkplain OutboxAdmin#retryDead revived}
 * @param outbox the outbox name
 * @param groupKey the group key, or {@code null}
 * @param type the message type
 * @param attempts how many delivery attempts failed
 * @param lastError the last failure's description (exception class and message, possibly
 *     shortened)
 * @param createdAt when the message was published
 * @param lastAttemptAt when the last attempt failed
 */
public record DeadMessage(
    long id,
    String outbox,
    String groupKey,
    String type,
    int attempts,
    String lastError,
    Instant createdAt,
    Instant lastAttemptAt) {}
