/**
 * The consumer side of an outbox: drops the duplicates and stale redeliveries an outbox may send.
 *
 * <h2>Rationale</h2>
 * Outboxer delivers at least once: a batch that reached the broker but whose commit failed is sent
 * again, a node that lost its claim may still send copies. Every relayed message carries its id and
 * group key, and within a group ids only increase, so a consumer that remembers the last id it
 * processed per group can tell a copy from a new message with one row per group.
 *
 * <h2>How it works</h2>
 * {@link dev.outboxer.inbox.Inbox#accept} runs in the consumer's own transaction. For a grouped
 * message it locks the group's row in {@code outbox_inbox} and moves its {@code last_id} up if the
 * message's id is greater (accept) or leaves it (duplicate or stale: skip). Messages without group
 * key, and outboxes configured to be deduplicated by id, get a row per id in {@code
 * outbox_inbox_message}. Either row commits or rolls back with the processing. A dead message that
 * an operator revives comes back under a new, greater id and is accepted.
 *
 * <pre>{@code
 * @Inject Inbox inbox;
 *
 * @Transactional
 * public void onMessage(Message message) {
 *     if (inbox.accept(JmsInboxMessage.from(message))) {
 *         process(message);
 *     }
 * }
 * }</pre>
 *
 * <p>The tables: {@code META-INF/outboxer/inbox/flyway/<database>/V1__outboxer_inbox.sql} in the jar
 * (plain script and Flyway migration), or the Liquibase changelog {@code
 * META-INF/outboxer/inbox/liquibase/<database>.xml}.
 */
package dev.outboxer.inbox;
