/**
 * The Kafka relay: sends outbox messages to an Apache Kafka topic.
 *
 * <h2>Rationale</h2>
 * Kafka keeps order per partition, and a record key picks the partition; so the group key becomes
 * the record key, and the relay only has to make sure that no record overtakes an earlier, failed
 * record of its group, and that a node which lost its claim of an outbox partition cannot write
 * behind the node that took it over. The producer is idempotent with {@code acks=all}, so that
 * retries neither duplicate nor reorder and an acknowledged record survives a leader failure; by
 * default it is also transactional, so that the broker itself fences a stale node.
 *
 * <h2>How it works</h2>
 * {@link dev.outboxer.kafka.KafkaRelayProvider} (a CDI bean named {@code kafka}) creates one relay
 * per outbox. With {@code fencing=transactional} (the default) the relay keeps a transactional
 * producer per outbox partition ({@code transactional.id} = prefix + partition, the same on every
 * node) and sends each batch in one Kafka transaction: begin, send every record, wait for the
 * acknowledgements, check that the claim still holds, commit, and only then confirm the records.
 * A node that claims a partition initialises that partition's producer, which fences every older
 * producer of the same id: the broker aborts a stale node's open transaction and refuses its
 * commit. A record refused for what it is aborts the transaction; it fails alone and the rest is
 * sent again in a new one. With {@code fencing=none} one idempotent producer serves the outbox and
 * a batch goes out in waves: the first record of every ordering unit, flushed and acknowledged,
 * then the second, and so on, never waiting past the batch deadline. See {@link
 * dev.outboxer.kafka.KafkaRelayProvider} for settings and guarantees, and {@link
 * dev.outboxer.kafka.OutboxKafkaHeaders} for what consumers receive.
 *
 * <h2>What consumers must do</h2>
 * Read with {@code isolation.level=read_committed} (Kafka's default is {@code read_uncommitted},
 * which also returns the records of aborted transactions: a stale node's, and those of a batch
 * aborted because one of its records was refused). Drop duplicates by {@code outbox-id}: delivery
 * is at least once.
 *
 * <pre>
 * outbox.orders.relay=kafka
 * outbox.orders.kafka.topic=orders
 * outbox.orders.kafka.bootstrap.servers=kafka1:9092,kafka2:9092
 * outbox.orders.kafka.compression.type=zstd
 * # default: transactional; none only where the brokers do not allow transactions
 * outbox.orders.kafka.fencing=transactional
 * </pre>
 */
package dev.outboxer.kafka;
