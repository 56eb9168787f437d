/**
 * The Amazon SQS relay: sends outbox messages to an SQS queue with the AWS SDK for Java v2.
 * Selected with {@code outbox.<name>.relay=sqs}; configured with the {@code outbox.<name>.sqs.*}
 * keys listed on {@link dev.outboxer.sqs.SqsRelayProvider}.
 *
 * <h2>Rationale</h2>
 * A FIFO queue keeps order per message group, and deduplicates by an id for five minutes. So the
 * group key becomes the MessageGroupId, the message id the MessageDeduplicationId, and the relay
 * only has to make sure that no message overtakes an earlier, failed message of its group. A
 * standard queue keeps no order and is accepted only for {@code ordering=none}.
 *
 * <h2>How it works</h2>
 * {@link dev.outboxer.sqs.SqsRelayProvider} (a CDI bean named {@code sqs}) creates one relay and
 * one SQS client (the JDK-based URL-connection HTTP client) per outbox, shared by its partition
 * workers. For each batch the relay sends the first record of every ordering unit with
 * SendMessageBatch (up to {@code batch-size} entries and {@code max-message-size} bytes per call),
 * reports each entry's outcome, then sends the second record of every unit whose first was
 * confirmed, and so on. It asks {@link dev.outboxer.spi.RelayBatch#heldBack} before each record,
 * stops when the batch's claim lapsed, and never starts a call past the batch deadline (each call
 * is bounded by the time left). Nothing is sent inside the worker's JTA transaction: SQS is not a
 * transactional resource.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Order, FIFO queue.</b> SQS keeps order per MessageGroupId. In {@code group} mode the
 *       MessageGroupId is the group key (a key SQS would refuse, longer than 128 characters or
 *       with characters other than printable ASCII, is replaced by {@code sha256-} and its hex
 *       SHA-256: equal keys still share one group); a message without group key gets one of the
 *       {@code ungrouped-group-ids}, picked by a stable hash of its id. In {@code total} mode every
 *       message gets the one {@code total-group-id}, so consumers see the outbox's total order.
 *       The relay never sends a record while an earlier record of its unit may still fail: a
 *       failure holds back its group only (in {@code total} mode: everything after it).</li>
 *   <li><b>Order, standard queue.</b> None: standard queues deliver in any order. The relay
 *       refuses a standard queue unless {@code ordering=none} (a queue is FIFO exactly when its
 *       name ends in {@code .fifo}).</li>
 *   <li><b>Confirmed means accepted.</b> A record is confirmed when SendMessageBatch lists its
 *       entry as successful: SQS has stored it redundantly. Then its row is deleted.</li>
 *   <li><b>Duplicates.</b> Delivery is at least once: a record whose answer was lost, or whose
 *       batch's database commit failed, is sent again. On a FIFO queue SQS drops a re-send with
 *       the same MessageDeduplicationId ({@code deduplication-id-prefix} + message id) within five
 *       minutes of the first send, so a consumer sees it once; a re-send after that (a long
 *       outage, a revived dead message that had in fact been delivered) arrives again. Consumers
 *       drop duplicates by {@value dev.outboxer.spi.StandardHeaders#ID}: within a group ids only
 *       increase. A standard queue adds its own at-least-once copies.</li>
 *   <li><b>Failures.</b> A message that could never be sent (more than 10 message attributes,
 *       larger than {@code max-message-size} with its attributes and its body as it will be sent,
 *       an empty payload, a type or group key with characters SQS refuses in an attribute) is
 *       refused by {@code publish}. An entry SQS refuses (an attribute value it does not accept,
 *       say) fails that record. A stored record that can never be sent (written before those
 *       checks) fails without a call. A call that fails as a whole (endpoint unreachable,
 *       throttling past the SDK's retries, timeouts, a queue that does not exist, refused
 *       credentials) fails the batch: the relay throws and the core retries every unconfirmed
 *       record with backoff.</li>
 *   <li><b>Fencing.</b> Every message carries the batch's fencing token as the {@value
 *       dev.outboxer.spi.StandardHeaders#FENCING_TOKEN} attribute; SQS itself cannot compare
 *       tokens, so a consumer that needs protection from a stale worker must (per outbox and
 *       partition, refusing a lower token than one already seen).</li>
 * </ul>
 *
 * <h2>What a consumer receives</h2>
 * The body is the payload as UTF-8 text when it is textual (JSON by default), else its Base64 with
 * the attribute {@value dev.outboxer.sqs.SqsMessageAttributes#BODY_ENCODING}{@code =base64}. The
 * message attributes are the message's own headers (type String) and Outboxer's {@link
 * dev.outboxer.spi.StandardHeaders}: {@code outbox-id}, {@code outbox-partition} and {@code
 * outbox-fencing-token} (type Number), {@code outbox-name}, {@code outbox-type}, {@code
 * outbox-content-type} and, for a message with group key, {@code outbox-group-key} (type String).
 * SQS allows 10 attributes per message: with 6 to 8 of the relay's own, a message can carry 2 to
 * 4 headers ({@code publish} refuses one that would need more). Ask for them with {@code MessageAttributeNames=All} when receiving.
 *
 * <pre>
 * outbox.orders.relay=sqs
 * outbox.orders.sqs.queue-url=https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo
 * # credentials from the SDK's default chain (role, environment, profile) unless set:
 * # outbox.orders.sqs.access-key-id=...
 * # outbox.orders.sqs.secret-access-key=...
 * </pre>
 */
package dev.outboxer.sqs;
