/**
 * Outboxer's application-facing API: a transactional outbox for Jakarta EE.
 *
 * <h2>Rationale</h2>
 * A business transaction that also has to tell the outside world (a JMS queue, a Kafka topic)
 * cannot do both atomically without distributed transactions that most brokers and databases do
 * not offer together. The outbox pattern writes the message as a row in the same database
 * transaction as the business data; a background worker relays committed rows afterwards. The
 * message is sent if and only if the business transaction committed, at least once, in the promised
 * order.
 *
 * <h2>How it works</h2>
 * <ol>
 *   <li>{@link dev.outboxer.Outbox#publish(OutboxMessage)} inserts the row through JPA in the
 *       caller's JTA transaction. No transaction, no row: it throws.</li>
 *   <li>Each outbox (configured with {@code outbox.<name>.relay} and friends in MicroProfile
 *       Config) is split into partitions; a message's group key picks its partition.</li>
 *   <li>One worker in the whole cluster holds a partition at a time (a pessimistic database lock),
 *       reads its pending rows by id and hands them to a {@link dev.outboxer.spi.Relay}. A row is
 *       deleted only after the relay confirmed it.</li>
 *   <li>A failed message is retried with exponential backoff; what it holds back depends on the
 *       outbox's {@link dev.outboxer.Ordering}. With a finite {@code max-attempts} it ends up
 *       dead and is kept for {@link dev.outboxer.OutboxAdmin}.</li>
 * </ol>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Outboxed("orders")
 * public record OrderPaid(long orderId) implements OutboxMessage {
 *     @Override public String groupKey() { return "order:" + orderId; }
 * }
 *
 * @Stateless
 * public class Payments {
 *     @Inject Outbox outbox;
 *     @PersistenceContext EntityManager em;
 *
 *     public void pay(Order order) {
 *         order.markPaid();                          // business change ...
 *         outbox.publish(new OrderPaid(order.id()));  // ... and its event, in one transaction
 *     }
 * }
 * }</pre>
 */
package dev.outboxer;
