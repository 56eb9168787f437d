package dev.outboxer.kafka;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Creates the Kafka relay of each outbox configured with {@code outbox.<name>.relay=kafka}.
 *
 * <p>Settings, all under {@code outbox.<name>.kafka.}: {@code topic} (required) and any Kafka
 * producer property, passed through ({@code bootstrap.servers} is required). The relay sets, and
 * refuses overrides that would break order or lose confirmed messages of: {@code
 * enable.idempotence=true}, {@code acks=all}, {@code max.in.flight.requests.per.connection} at
 * most 5 (default 5), String / byte[] serializers and no {@code transactional.id}. Timeouts derive
 * from {@code outbox.<name>.relay-timeout} <i>R</i>: {@code delivery.timeout.ms} defaults to 3/4
 * <i>R</i> and must stay below <i>R</i>, {@code max.block.ms} (metadata waits) to <i>R</i>/4 (at
 * most 60 s), {@code request.timeout.ms} to half the delivery timeout (at most 30 s). A bad
 * setting fails {@link #create} with an {@link dev.outboxer.OutboxConfigurationException} naming
 * the key and the value.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Each message becomes one record: key = group key ({@code null} stays {@code null}), value =
 *       payload bytes, headers = the message's headers plus {@link OutboxKafkaHeaders}.</li>
 *   <li>Order: the records of one group key go to one partition, in id order. A record is handed
 *       to the producer only after the previous record of its ordering unit was acknowledged, so
 *       a failed record is never overtaken by a later one of its unit; other units keep flowing.
 *       In {@code total} mode this means one record at a time, and the topic needs a single
 *       partition for consumers to see the total order.</li>
 *   <li>A message is confirmed only once the brokers acknowledged it ({@code acks=all}). Delivery
 *       is at least once: a record whose acknowledgement was lost, or whose batch failed to
 *       commit, is sent again; consumers drop duplicates by {@link OutboxKafkaHeaders#ID}.</li>
 *   <li>One producer per outbox, shared by its partition workers and closed with the relay.</li>
 * </ul>
 */
@ApplicationScoped
public class KafkaRelayProvider implements RelayProvider {

  /** The provider name, used in {@code outbox.<name>.relay=kafka}. */
  public static final String NAME = KafkaRelaySettings.PROVIDER;

  /** @return {@value #NAME} */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * Validates the outbox's Kafka settings and creates its producer. The producer's network thread
   * connects right away (the idempotent producer fetches its producer id) but this method does not
   * wait for it: brokers that are down make the first batches fail, not the deployment.
   *
   * @param context the outbox's name, ordering, relay timeout and {@code kafka.*} settings
   * @return a thread-safe relay that owns one producer, released by {@link Relay#close()}
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing or unsafe
   */
  @Override
  public Relay create(RelayContext context) {
    return KafkaRelay.create(KafkaRelaySettings.from(context));
  }
}
