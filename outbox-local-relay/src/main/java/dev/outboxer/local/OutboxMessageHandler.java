package dev.outboxer.local;

import dev.outboxer.spi.OutboxRecord;

/**
 * Processes outbox messages of one message class, decoded, inside the partition worker's JTA
 * transaction. The same guarantees, limits and failure rules as {@link OutboxHandler} apply; the
 * only difference is that the relay decodes the payload first.
 *
 * <pre>{@code
 * @Outboxed("orders")
 * public record OrderPlaced(long orderId, String item) implements OutboxMessage { ... }
 *
 * @ApplicationScoped                    // outbox and type come from OrderPlaced's @Outboxed
 * public class ReserveStock implements OutboxMessageHandler<OrderPlaced> {
 *     @PersistenceContext EntityManager em;
 *
 *     public void handle(OrderPlaced event, OutboxRecord record) {
 *         em.find(Stock.class, event.item()).reserve(1);
 *     }
 * }
 * }</pre>
 *
 * <h2>Which messages it gets</h2>
 * The message class is the bean's type argument {@code T} (it must be a class, not a type variable
 * or wildcard). The handler receives the messages whose stored type is {@code T}'s type name
 * ({@link dev.outboxer.Outboxed#type()}, else {@code T}'s simple name, as {@code publish} stores
 * it), from the outbox named by {@code T}'s {@link dev.outboxer.Outboxed @Outboxed}. A {@link
 * HandlesOutbox @HandlesOutbox} on the bean overrides either: its {@code value} for a message class
 * published to another outbox (or without {@code @Outboxed}), its {@code type} for a stored type
 * name that differs. Naming the bean in {@code outbox.<name>.local.handler} also makes it a handler
 * of that outbox, for {@code T}'s type.
 *
 * <h2>Decoding</h2>
 * With the application's {@link dev.outboxer.spi.PayloadCodec} bean if there is one, else with
 * JSON-B (Outboxer's default encoding). A payload that cannot be decoded fails its message like a
 * handler failure, without calling the handler (and without rolling back the rest of the batch:
 * nothing was written).
 *
 * @param <T> the message class
 */
@FunctionalInterface
public interface OutboxMessageHandler<T> {

  /**
   * Processes one message, inside the worker's JTA transaction.
   *
   * @param message the decoded payload
   * @param record the message as stored: id, group key, type, headers, failed attempts so far
   * @throws Exception to fail the message: its attempts are counted and it is retried after the
   *     outbox's backoff, or dies after {@code max-attempts}
   */
  void handle(T message, OutboxRecord record) throws Exception;
}
