/**
 * The JMS relay: sends outbox messages to a Jakarta Messaging 3.1 queue or topic. Selected with
 * {@code outbox.<name>.relay=jms}; configured with the {@code outbox.<name>.jms.*} keys listed on
 * {@link dev.outboxer.jms.JmsRelayProvider}.
 *
 * <h2>Rationale</h2>
 * JMS is the messaging API every Jakarta EE server ships, and its connection factories are usually
 * JTA-aware. A relay that sends inside the partition worker's transaction gets, for free, the
 * strongest hand-over an outbox can have: the message is on the broker if and only if its row was
 * deleted.
 *
 * <h2>How it works</h2>
 * For each batch, on the worker's thread and inside the worker's JTA transaction, the relay opens a
 * connection and one session, sends the records in id order through one producer, reports each
 * record ({@link dev.outboxer.spi.RelayBatch#confirm confirm} after its send returned, {@link
 * dev.outboxer.spi.RelayBatch#fail fail} with a {@link dev.outboxer.jms.JmsRelayException}),
 * skips the records the batch {@linkplain dev.outboxer.spi.RelayBatch#heldBack holds back}, and
 * closes the connection. A platform pools connections, so this is cheap in a server; in Java SE a
 * bare provider factory opens a real connection per batch (fine for an in-VM broker, one TCP
 * handshake per batch otherwise).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>With a JTA-aware (XA) connection factory</b> (an application server's, or Narayana's
 *       {@code ConnectionFactoryProxy} in Java SE) the session is enlisted in the worker's
 *       transaction when it is created. The sends become visible when that transaction commits,
 *       together with the deletion of the confirmed rows; if it rolls back, or its commit fails,
 *       neither happens. No duplicates arise from a failed commit.</li>
 *   <li><b>With a plain connection factory</b> the session is not transacted: each persistent send
 *       returns once the broker has the message, before the database commits. If that commit
 *       fails, the batch is sent again: delivery is <i>at-least-once</i>. Consumers drop duplicates
 *       by {@link dev.outboxer.jms.JmsMessageProperties#OUTBOX_ID outboxId}.</li>
 *   <li><b>Order.</b> Within a batch the relay sends in id order over one session and producer,
 *       with one priority and delivery mode, and the core hands a group's next message over only
 *       after the previous one was confirmed (and, with XA, committed). JMS then delivers in that
 *       order to a single consumer of a queue and to each subscriber of a topic. With several
 *       consumers on one queue, per-group order needs a broker that honours {@code JMSXGroupID}
 *       (message groups: ActiveMQ Artemis and Classic do). Redelivery after a consumer's rollback
 *       can reorder on some brokers.</li>
 *   <li><b>Failures.</b> A failure that JMS attributes to the record or its destination ({@code
 *       InvalidDestinationException}, {@code JMSSecurityException}, {@code MessageFormatException},
 *       {@code MessageNotWriteableException}) fails that record; later records of its ordering unit
 *       are held back, other units go on. Any other failure (no connection, a broken session, a
 *       full broker, the relay timeout passed) fails the batch: the relay throws and the worker
 *       retries with backoff. A broker may report a refusal only at commit when the session is
 *       transacted (Artemis does for a missing send permission): the commit then fails and the
 *       whole batch is retried, nothing is lost.</li>
 *   <li><b>Fencing.</b> Every message carries the batch's fencing token ({@code
 *       outboxFencingToken}) and outbox partition ({@code outboxPartition}). The relay asks the
 *       batch before each send whether its claim still holds and stops when it does not; a record
 *       sent when the claim lapsed is not confirmed. <i>With an XA factory</i> nothing more is
 *       needed: a node that lost its claim (paused past its lease, or its database connection
 *       killed) cannot commit its transaction, so the broker never delivers what it sent, while the
 *       node that took the partition over delivers the same rows in order.
 *       <i>With a plain factory</i> a send that was under way when the claim lapsed is delivered at
 *       once: a consumer can then see, for the same {@code outboxPartition}, a message with a lower
 *       {@code outboxFencingToken} after one with a higher token, and should drop it (it is a
 *       duplicate of a message the new owner sends again).</li>
 *   <li><b>Non-guarantees.</b> A {@code non-persistent} delivery mode may lose messages in a broker
 *       crash, and some providers (Artemis) send non-persistent messages without waiting for the
 *       broker. A {@code time-to-live} lets the broker drop unconsumed messages. Both trade the
 *       outbox's at-least-once promise for speed; the defaults keep it.</li>
 * </ul>
 *
 * <h2>Example (Java SE, Narayana and Artemis)</h2>
 * <pre>{@code
 * # microprofile-config.properties
 * outbox.orders.relay=jms
 * # a JNDI name, or (as here) the name of a @Named Destination bean
 * outbox.orders.jms.destination=jms/orders
 *
 * @ApplicationScoped
 * public class Messaging {
 *     @Produces @ApplicationScoped              // the @Default ConnectionFactory: used when
 *     ConnectionFactory connectionFactory() {   // outbox.orders.jms.connection-factory is unset
 *         return new ConnectionFactoryProxy(    // XA: sends commit with the worker's transaction
 *             new ActiveMQXAConnectionFactory("tcp://localhost:61616"),
 *             new TransactionHelperImpl(com.arjuna.ats.jta.TransactionManager.transactionManager()));
 *     }
 *     @Produces @Named("jms/orders")
 *     Queue orders() { return new ActiveMQQueue("orders"); }
 * }
 * }</pre>
 */
package dev.outboxer.jms;
