/**
 * The Kafka relay: sends outbox messages to an Apache Kafka topic.
 *
 * <h2>Rationale</h2>
 * Kafka keeps order per partition, and a record key picks the partition; so the group key becomes
 * the record key, and the relay only has to make sure that no record overtakes an earlier,
 * failed record of its group. The producer is made idempotent with {@code acks=all} so that
 * retries neither duplicate nor reorder and an acknowledged record survives a leader failure.
 *
 * <h2>How it works</h2>
 * {@link dev.outboxer.kafka.KafkaRelayProvider} (a CDI bean named {@code kafka}) creates one relay
 * and one producer per outbox. For each batch the relay sends the first record of every ordering
 * unit asynchronously, flushes, collects the outcomes from the send callbacks, then sends the
 * second record of each unit whose first one was confirmed, and so on, never waiting past the
 * batch deadline. See {@link dev.outboxer.kafka.KafkaRelayProvider} for settings and guarantees,
 * and {@link dev.outboxer.kafka.OutboxKafkaHeaders} for what consumers receive.
 *
 * <pre>
 * outbox.orders.relay=kafka
 * outbox.orders.kafka.topic=orders
 * outbox.orders.kafka.bootstrap.servers=kafka1:9092,kafka2:9092
 * outbox.orders.kafka.compression.type=zstd
 * </pre>
 */
package dev.outboxer.kafka;
