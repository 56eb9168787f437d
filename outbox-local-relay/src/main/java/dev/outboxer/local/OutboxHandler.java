package dev.outboxer.local;

import dev.outboxer.spi.OutboxRecord;

/**
 * Processes outbox messages as they are, inside the partition worker's JTA transaction: what the
 * handler writes through that transaction commits together with the deletion of the message, or
 * not at all. Implement it as a CDI bean for an outbox configured with {@code
 * outbox.<name>.relay=local}, and select it with {@link HandlesOutbox @HandlesOutbox} or with
 * {@code outbox.<name>.local.handler=<bean name>}. To get the decoded message object instead of
 * the stored bytes, implement {@link OutboxMessageHandler} instead.
 *
 * <pre>{@code
 * @ApplicationScoped
 * @HandlesOutbox("orders")            // every message type of outbox "orders"
 * public class OrderProjection implements OutboxHandler {
 *     @PersistenceContext EntityManager em;   // the same data source as the outbox
 *
 *     public void handle(OutboxRecord record) {
 *         em.persist(new OrderView(record.id(), record.payloadText()));
 *     }
 * }
 * }</pre>
 *
 * <h2>What a handler can rely on</h2>
 * <ul>
 *   <li><b>Exactly once, for transactional work.</b> The worker's transaction is active on the
 *       calling thread. What the handler does through it (a container-managed {@code EntityManager}
 *       or a JTA data source of the <em>same</em> database as the outbox) commits if and only if
 *       the message is deleted. A handler may run more than once for the same message (the batch
 *       rolled back, its commit failed), but only one run's work is ever committed.</li>
 *   <li><b>Order.</b> Messages arrive in id order, one at a time per partition. Within a group
 *       (an ordering unit of the outbox, see {@link dev.outboxer.Ordering}) message <i>n+1</i> is
 *       handled only after message <i>n</i> was handled successfully, in the same transaction or
 *       in one that committed before (so the handler of <i>n+1</i> sees the writes of <i>n</i>),
 *       or after <i>n</i> died or was discarded.</li>
 * </ul>
 *
 * <h2>What it cannot rely on</h2>
 * <ul>
 *   <li>Anything outside the transaction (an HTTP call, a file, a non-XA resource, a second
 *       database without two-phase commit) may happen more than once, and may happen for a run
 *       whose database work was then rolled back.</li>
 *   <li>A handler must not commit, roll back or suspend the transaction, nor do its work in a new
 *       one ({@code REQUIRES_NEW}, a non-JTA data source): that work would commit on its own, and
 *       be done again when the message is retried.</li>
 * </ul>
 *
 * <h2>Failures</h2>
 * A handler fails a message by throwing. Its writes must then not commit, so the relay marks the
 * worker's transaction for rollback (if the handler, or an EJB or {@code @Transactional} bean it
 * called, has not already): nothing of the batch commits. Outboxer then records the failure on its
 * own (attempts + 1, retry after the outbox's backoff, dead after {@code max-attempts}), holds
 * back the rest of the message's group, and hands the other messages of the batch over again. A
 * handler that returns normally but leaves the transaction marked for rollback (it caught the
 * exception of a transactional call) fails its message in the same way. After each handler that
 * returned, the relay flushes the outbox's {@code EntityManager}, so that a write the database
 * refuses fails this message instead of the commit of the whole batch.
 *
 * <p>Implementations must be thread-safe: the workers of an outbox's partitions call the same
 * handler instance concurrently, one message at a time per partition.
 */
@FunctionalInterface
public interface OutboxHandler {

  /**
   * Processes one message, inside the worker's JTA transaction.
   *
   * @param record the message as stored: id, group key, type, payload, headers, failed attempts
   *     so far
   * @throws Exception to fail the message: its attempts are counted and it is retried after the
   *     outbox's backoff, or dies after {@code max-attempts}
   */
  void handle(OutboxRecord record) throws Exception;
}
