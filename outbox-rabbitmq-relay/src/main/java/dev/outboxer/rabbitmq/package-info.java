/**
 * The RabbitMQ relay: publishes outbox messages to a RabbitMQ exchange over AMQP 0-9-1 with the
 * RabbitMQ Java client, with publisher confirms. Selected with {@code outbox.<name>.relay=rabbitmq};
 * configured with the {@code outbox.<name>.rabbitmq.*} keys listed on {@link
 * dev.outboxer.rabbitmq.RabbitRelayProvider}.
 *
 * <h2>How it works</h2>
 * {@link dev.outboxer.rabbitmq.RabbitRelayProvider} (a CDI bean named {@code rabbitmq}) creates one
 * relay per outbox; the relay opens one connection at its first batch (and again at the next batch
 * after it was lost: the client's automatic recovery is off) and one confirm-mode channel per
 * partition. For each batch it publishes the first record of every ordering unit, waits for the
 * broker's confirms, reports each record, then publishes the second record of every unit whose first
 * was confirmed, and so on ({@link dev.outboxer.spi.RelayBatch#waves()}). It asks {@link
 * dev.outboxer.spi.RelayBatch#heldBack} before each record, stops as soon as the batch's claim lapsed,
 * and never waits past {@code confirm-timeout} or the batch deadline. Nothing is sent inside the
 * worker's JTA transaction: AMQP 0-9-1 channels cannot join one, so delivery is at least once.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Confirmed means the broker took responsibility.</b> A record is confirmed only after the
 *       broker acked it: routed to every bound queue (persisted there, for a persistent message in a
 *       durable queue; accepted by a quorum, for a quorum queue). Then its row is deleted.</li>
 *   <li><b>Failures per record.</b> A message no queue is bound for comes back (the mandatory flag,
 *       on by default) and fails its record; a nack (a full queue with {@code
 *       overflow=reject-publish}) fails its record; so does a record without confirm within {@code
 *       confirm-timeout}. The rest of the failed record's unit is held back; other units go on. A
 *       message larger than the broker's {@code max_message_size} makes the broker close the channel:
 *       the records of that wave still awaiting confirms fail, and the next wave goes on a fresh
 *       channel (set {@code max-message-size} to the broker's limit and {@code publish} refuses such
 *       a message up front).</li>
 *   <li><b>Failures of the batch.</b> The broker cannot be reached, refuses the credentials or the
 *       virtual host, the exchange does not exist, the connection is lost, or the broker blocks
 *       publishers (memory or disk alarm): the relay throws, and the core retries every unconfirmed
 *       record with backoff.</li>
 *   <li><b>Order.</b> RabbitMQ keeps the publish order of one channel in each queue, and a queue
 *       delivers in that order to a single consumer. Since a record goes out only after every earlier
 *       record of its unit was confirmed, a queue holds each group's messages in outbox order (a retry
 *       of a failed message comes before the later messages of its group). Consumers in parallel on
 *       one queue break that order: see the guide for a consistent-hash exchange (routing key = group
 *       key) or single-active-consumer queues.</li>
 *   <li><b>Duplicates.</b> A record whose confirm was lost, or whose batch's database commit failed,
 *       is sent again. Consumers drop duplicates by {@value dev.outboxer.spi.StandardHeaders#ID}:
 *       within a group ids only increase.</li>
 *   <li><b>Fencing.</b> The relay stops publishing when the claim lapsed ({@link
 *       dev.outboxer.spi.RelayBatch#claimHeld()}), and every message carries the batch's fencing token
 *       and partition as the {@value dev.outboxer.spi.StandardHeaders#FENCING_TOKEN} and {@value
 *       dev.outboxer.spi.StandardHeaders#PARTITION} headers. RabbitMQ itself cannot compare tokens: a
 *       consumer that needs protection from a node that published just before its claim lapsed
 *       refuses, per outbox and partition, a lower token than one it already accepted.</li>
 * </ul>
 *
 * <h2>What a consumer receives</h2>
 * The body is the payload's bytes. Properties: {@code message-id} = the outbox message id, {@code
 * type} = the message type, {@code content-type} = the payload's media type, {@code timestamp} = when
 * it was published (whole seconds), {@code delivery-mode} 2 (1 with {@code persistent=false}). Headers
 * (all values text): the message's own headers, and {@code outbox-id}, {@code outbox-name}, {@code
 * outbox-type}, {@code outbox-content-type}, {@code outbox-partition}, {@code outbox-fencing-token}
 * and, for a message with a group key, {@code outbox-group-key}. The routing key is the fixed {@code
 * routing-key} if set, else the group key (a key longer than 255 bytes: {@code sha256-} and its hex
 * SHA-256), else the message id.
 *
 * <pre>
 * outbox.orders.relay=rabbitmq
 * outbox.orders.rabbitmq.host=rabbitmq.internal
 * outbox.orders.rabbitmq.username=orders
 * outbox.orders.rabbitmq.password=...
 * outbox.orders.rabbitmq.exchange=orders
 * </pre>
 */
package dev.outboxer.rabbitmq;
