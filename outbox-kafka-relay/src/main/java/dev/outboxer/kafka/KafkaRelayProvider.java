package dev.outboxer.kafka;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Creates the Kafka relay of each outbox configured with {@code outbox.<name>.relay=kafka}.
 *
 * <h2>Settings</h2>
 * All under {@code outbox.<name>.kafka.}, declared in {@link KafkaSettings} and read with the
 * SPI's {@link dev.outboxer.spi.SettingsReader}:
 * <ul>
 *   <li>{@code topic} (required): the destination topic.</li>
 *   <li>{@code fencing}: {@code transactional} (default) or {@code none}; see below.</li>
 *   <li>{@code transactional-id-prefix}: default {@code outboxer-<outbox>}; the producer of outbox
 *       partition <i>p</i> uses {@code transactional.id} = prefix + {@code -p}. It must be the
 *       same on every node of the application (that is what lets a new owner fence an old one)
 *       and differ between applications that share a Kafka cluster and an outbox name.</li>
 *   <li>Any Kafka producer property ({@code ProducerConfig}), passed through; {@code
 *       bootstrap.servers} is required. Any other key is rejected, naming the nearest known key.</li>
 * </ul>
 * The relay sets, and refuses overrides that would break order or lose confirmed messages of:
 * {@code enable.idempotence=true}, {@code acks=all}, {@code max.in.flight.requests.per.connection}
 * at most 5 (default 5), String / byte[] serializers and {@code transactional.id}. Timeouts derive
 * from {@code outbox.<name>.relay-timeout} <i>R</i>: {@code delivery.timeout.ms} defaults to 3/4
 * <i>R</i> and must stay below <i>R</i>, {@code max.block.ms} (metadata waits, commits) to
 * <i>R</i>/4 (at most 60 s), {@code request.timeout.ms} to half the delivery timeout (at most 30
 * s), {@code transaction.timeout.ms} to <i>R</i> (at most 15 min). {@link #validate} reports every
 * bad setting at once, each naming its key and value.
 *
 * <h2>Fencing</h2>
 * <ul>
 *   <li><b>{@code transactional}</b> (default): a transactional producer per outbox partition,
 *       created at the partition's first batch. Every batch is one Kafka transaction, committed
 *       before the relay returns; the records are confirmed only after the commit. A node that
 *       claims a partition initialises its producer of that partition's {@code transactional.id},
 *       which makes the broker abort the open transaction of every older producer of that id and
 *       refuse its later sends and commits. A node that lost its claim while paused in the middle
 *       of a batch therefore cannot add its records after the new owner's:
 *       <b>consumers must read with {@code isolation.level=read_committed}</b> (Kafka's default is
 *       {@code read_uncommitted}, which also shows aborted records). The cost: one commit per
 *       batch and a producer (a network thread) per outbox partition on each node.</li>
 *   <li><b>{@code none}</b>: one idempotent producer for the outbox, no transactions (for brokers
 *       or ACLs that do not allow them). The relay still stops sending as soon as the batch's
 *       claim may have lapsed, but records already handed to the producer at that moment still
 *       reach the topic: a node paused in the middle of a batch past its lease can, after it
 *       resumes, write records behind those of the node that took the partition over. Consumers
 *       then see an older {@link OutboxKafkaHeaders#FENCING_TOKEN} after a newer one for the same
 *       {@link OutboxKafkaHeaders#PARTITION} and must drop such records themselves.</li>
 * </ul>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Each message becomes one record: key = group key ({@code null} stays {@code null}), value =
 *       payload bytes, headers = the message's headers plus {@link OutboxKafkaHeaders} (id, group
 *       key, outbox, type, content type, outbox partition, fencing token).</li>
 *   <li>Order: the records of one group key go to one partition, in id order. A record that failed
 *       is never overtaken by a later one of its ordering unit (with {@code none}: a record is
 *       handed to the producer only after the previous record of its unit was acknowledged; with
 *       {@code transactional}: the transaction holding both is aborted); other units keep flowing.
 *       In {@code total} mode the topic needs a single partition for consumers to see the total
 *       order.</li>
 *   <li>A message is confirmed only once the brokers acknowledged it ({@code acks=all}) and, with
 *       {@code transactional}, its transaction committed. Delivery is at least once: a record
 *       whose acknowledgement was lost, or whose batch failed to commit in the database, is sent
 *       again; consumers drop duplicates by {@link OutboxKafkaHeaders#ID}.</li>
 *   <li>Publish refuses messages that could never fit a record of {@code max.request.size}
 *       (payload, headers with Kafka's framing, key): see {@link #constraints}.</li>
 * </ul>
 */
@ApplicationScoped
public class KafkaRelayProvider implements RelayProvider {

  /** The provider name, used in {@code outbox.<name>.relay=kafka}. */
  public static final String NAME = KafkaRelayConfig.PROVIDER;

  /** @return {@value #NAME} */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * Checks the outbox's Kafka settings without connecting anywhere: the relay's own keys, every
   * producer property against Kafka's own parser, and the relay's safety rules.
   *
   * @param context the outbox's name, ordering, relay timeout and {@code kafka.*} settings
   * @throws dev.outboxer.OutboxConfigurationException naming the key and the value of the first
   *     problem, with every further problem suppressed in it
   */
  @Override
  public void validate(RelayContext context) {
    KafkaRelayConfig.from(context);
  }

  /**
   * What a record can carry. The payload: the producer's {@code max.request.size} (default 1 MiB;
   * {@code buffer.memory} if smaller), less {@value KafkaConstraints#RESERVED_BYTES} bytes kept for
   * headers (at most {@value KafkaConstraints#MAX_HEADER_BYTES} of the message's own), key and
   * framing. The whole message: its record as Kafka counts it (payload, each header with its
   * framing, key, the relay's headers) must fit {@code max.request.size}, or publish refuses it
   * naming the sizes; that matters for messages with thousands of tiny headers. The topic's {@code
   * max.message.bytes} is not known without the brokers; keep it at least as large.
   *
   * @param context the outbox's validated settings
   * @return the constraints
   */
  @Override
  public MessageConstraints constraints(RelayContext context) {
    return KafkaConstraints.of(KafkaRelayConfig.from(context));
  }

  /**
   * Validates the outbox's Kafka settings and creates its relay. With {@code fencing=none} the
   * producer is created here (its network thread connects right away, without being waited for);
   * with {@code transactional} each partition's producer is created at its first batch. Brokers
   * that are down make batches fail, not the deployment.
   *
   * @param context the outbox's name, ordering, relay timeout and {@code kafka.*} settings
   * @return a thread-safe relay that owns its producers, released by {@link Relay#close()}
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing or unsafe
   */
  @Override
  public Relay create(RelayContext context) {
    return KafkaRelay.create(KafkaRelayConfig.from(context));
  }
}
