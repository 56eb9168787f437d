package dev.outboxer;

import java.time.Instant;

/**
 * A message the outbox gave up on: it failed {@code max-attempts} times, or once with a permanent
 * failure ({@code outbox.<name>.dead-on}, {@link dev.outboxer.spi.PermanentRelayFailure}). It stays
 * in the outbox as dead until an operator revives or discards it. {@link OutboxAdmin#dead(String,
 * int)} lists these, and Outboxer fires one as a CDI event when a message dies.
 *
 * <h2>As a CDI event</h2>
 * <pre>{@code
 * void alert(@Observes DeadMessage dead) {
 *     pager.raise("outbox " + dead.outbox() + ": message " + dead.id() + " gave up: " + dead.lastError());
 * }
 * }</pre>
 * <ul>
 *   <li><b>When.</b> After the death is committed: after the commit of the worker's batch
 *       transaction, or, when that batch rolled back, after the commit of the transaction that
 *       recorded its failures on their own. Never for a death that was not committed (a batch that
 *       rolled back without its failures recorded, a commit whose outcome is unknown): the
 *       message is then still pending and goes again.</li>
 *   <li><b>Where.</b> {@code @Observes} observers are called on the worker's thread, with no
 *       transaction active (a {@code @Transactional} observer runs in a transaction of its own),
 *       one event after the other in id order; the partition's next batch waits for them, so keep
 *       them short. {@code @ObservesAsync} observers are called through {@code
 *       Event.fireAsync}, on the container's executor, and do not hold the worker up.</li>
 *   <li><b>Failures.</b> An observer that throws changes nothing the outbox committed: the message
 *       stays dead, its group has moved on; the failure is logged once at WARNING and the event is
 *       not repeated. As CDI defines for synchronous events, the exception stops the notification
 *       of the observers after it (by {@code @Priority}) for that event.</li>
 *   <li><b>Not guaranteed.</b> The event is at most once: a node that stops between the commit and
 *       its observers, or a commit whose outcome was unknown but did happen, leaves a dead message
 *       nobody was told of. For a reaction that must not be missed, also look at {@link
 *       OutboxAdmin#dead} (or count {@code outbox.dead}). A revived or discarded message fires
 *       nothing; the payload is not part of the event.</li>
 * </ul>
 *
 * @param id the message id, kept if it is {@linkplain OutboxAdmin#retryDead revived}
 * @param outbox the outbox name
 * @param groupKey the group key, or {@code null}
 * @param type the message type
 * @param attempts how many delivery attempts failed (1 for a failure that was permanent at once)
 * @param lastError the last failure's description (exception class and message, possibly
 *     shortened); a permanent failure's starts with {@code "permanent: "} and says why
 * @param createdAt when the message was published
 * @param lastAttemptAt when the last attempt failed: when it died
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
