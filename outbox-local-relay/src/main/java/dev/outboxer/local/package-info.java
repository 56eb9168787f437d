/**
 * The local relay: instead of sending outbox messages somewhere, hands them to an application
 * handler inside the partition worker's JTA transaction. Selected with {@code
 * outbox.<name>.relay=local}; handlers are CDI beans implementing {@link
 * dev.outboxer.local.OutboxHandler} (raw records) or {@link dev.outboxer.local.OutboxMessageHandler}
 * (decoded messages), selected by {@link dev.outboxer.local.HandlesOutbox @HandlesOutbox}, by the
 * message class's {@code @Outboxed}, or by name in {@code outbox.<name>.local.handler} (see {@link
 * dev.outboxer.local.LocalRelayProvider}).
 *
 * <h2>Rationale</h2>
 * Some work triggered by a business transaction must happen later, in order, and exactly once, in
 * the same database: update a read model, start the next step of a process, write an audit trail.
 * A job queue gives "later" but keeps order only with a concurrency of one, and a consumer of a
 * broker gives order but only at-least-once. The outbox already has both halves: per-group order
 * with partition parallelism, and a worker transaction that deletes the message. Doing the work in
 * that transaction makes the deletion the record that the work was done: the two commit together.
 *
 * <h2>How it works</h2>
 * For each batch, on the worker's thread, the relay takes the records in id order, skips the ones
 * the batch {@linkplain dev.outboxer.spi.RelayBatch#heldBack holds back}, finds each record's
 * handler (the handler of its type, else the outbox's handler for every type), decodes the payload
 * for an {@code OutboxMessageHandler} (the application's {@code PayloadCodec} bean, else JSON-B),
 * calls the handler, flushes the outbox's {@code EntityManager} (so that a write the database
 * refuses fails this message, not the commit of the batch) and confirms the record. The worker then
 * deletes the confirmed rows and commits: the handlers' writes and the deletions in one transaction.
 *
 * <p>When a handler throws, it may already have written. Only a rollback of the whole transaction
 * takes that back, so the relay marks the transaction for rollback (if the handler, or an EJB or
 * {@code @Transactional} bean it called, has not already) and reports the failure. The core rolls
 * the batch back, records the failure in a transaction of its own (attempts + 1, retry after the
 * backoff, dead after {@code max-attempts}) and reads the partition again: the failed message's
 * group waits for its retry, the other messages are handed over again.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Exactly-once effect of transactional work.</b> What a handler does through the worker's
 *       transaction (a container-managed {@code EntityManager} or JTA data source of the outbox's
 *       database) commits if and only if its message is deleted, so it takes effect exactly once. A
 *       handler may <em>run</em> more than once for a message (a rolled-back batch, a failed
 *       commit); only one run's work commits. Nothing of a failed run commits: not the handler's
 *       partial writes, not the deletion.</li>
 *   <li><b>Order.</b> That of the outbox: per group in {@code group} mode, global in {@code total}
 *       mode, none in {@code none} mode. Within a group, message <i>n+1</i> is handled only after
 *       <i>n</i> was handled successfully (earlier in the same transaction, or in one that
 *       committed), died or was discarded; its handler sees <i>n</i>'s writes. Partitions work in
 *       parallel, one transaction at a time each.</li>
 *   <li><b>Failures</b> follow the outbox's rules: backoff, {@code max-attempts}, dead messages
 *       revived by {@code OutboxAdmin.retryDead}. A message whose type has no handler, or whose
 *       payload cannot be decoded, fails alone without rolling back the batch (nothing was
 *       written).</li>
 * </ul>
 *
 * <h2>Fine print</h2>
 * <ul>
 *   <li><b>Only work in the transaction is exactly once.</b> An HTTP call, a file, a mail, a non-XA
 *       resource, a second database without two-phase commit: each may happen more than once, and
 *       for a run whose database work was rolled back. Work on another XA resource enlisted in the
 *       same JTA transaction commits with it (two-phase commit), at its cost.</li>
 *   <li><b>Do not leave the transaction.</b> {@code REQUIRES_NEW}, {@code NOT_SUPPORTED}, a
 *       non-JTA data source or a {@code UserTransaction} of the handler's own commit on their own,
 *       and are done again when the message is retried.</li>
 *   <li><b>The cost of a failure.</b> A failure rolls back the batch: the handlers that ran before
 *       it in the batch run again in the next batch (at most {@code batch-size - 1} extra runs per
 *       failure). The handlers after it are not called in the doomed transaction at all: the relay
 *       confirms them unhandled, which deletes nothing because the transaction cannot commit, and
 *       which keeps them from counting as failed attempts (the core counts every unreported record
 *       that is not held back as failed). In addition the core backs the partition off as for any
 *       failed batch ({@code backoff.min}, doubling while batches keep failing), which delays the
 *       other groups of that partition. Lower {@code batch-size} for handlers that fail often.</li>
 *   <li><b>The relay timeout.</b> The relay starts no handler once the batch's {@linkplain
 *       dev.outboxer.spi.RelayBatch#deadline() deadline} is near; what is left counts as failed, as
 *       for every relay. A handler that returns after the deadline dooms the batch, because its
 *       confirmation may no longer count.</li>
 *   <li><b>The flush.</b> Only the outbox's {@code EntityManager} ({@code @OutboxPersistence}, else
 *       the application's only default one) is flushed after each handler. A handler writing through
 *       another persistence unit of the same data source should flush it itself; otherwise a write
 *       refused at commit fails the whole batch, blamed on no message, again and again.</li>
 * </ul>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * # microprofile-config.properties
 * outbox.orders.relay=local
 * outbox.orders.partitions=4
 * outbox.orders.max-attempts=5
 *
 * @Outboxed("orders")
 * public record OrderPlaced(long orderId, String customer) implements OutboxMessage {
 *     public String groupKey() { return "customer:" + customer; }
 * }
 *
 * @ApplicationScoped
 * public class CustomerStatistics implements OutboxMessageHandler<OrderPlaced> {
 *     @PersistenceContext(unitName = "orders") EntityManager em;
 *
 *     public void handle(OrderPlaced event, OutboxRecord record) {
 *         em.find(CustomerStats.class, event.customer()).countOrder(event.orderId());
 *     }
 * }
 * }</pre>
 */
package dev.outboxer.local;
