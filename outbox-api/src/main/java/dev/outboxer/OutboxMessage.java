package dev.outboxer;

import java.util.Map;

/**
 * A message that can be {@linkplain Outbox#publish(OutboxMessage) published} through an outbox.
 *
 * <p>The message object itself is serialised into the row's payload by the configured {@link
 * dev.outboxer.spi.PayloadCodec} (JSON-B by default), so its state must be serialisable by that
 * codec: a record or a bean with public accessors for JSON-B.
 *
 * <p>Annotate the type with {@link Outboxed} to name the outbox it goes to, or pass the outbox
 * name to {@link Outbox#publish(String, OutboxMessage)}.
 */
public interface OutboxMessage {

  /**
   * The key whose messages must stay in sequence, for example {@code "order:42"}.
   *
   * <p>In an outbox with {@link Ordering#GROUP} ordering, messages with equal keys are relayed in
   * publish (insertion) order, and a failing message holds back only the later messages of its own
   * key. Messages with a {@code null} key are unordered: they neither block nor are blocked. Choose
   * the smallest thing whose events must stay in sequence (usually the aggregate): the narrower the
   * key, the less one bad message holds up.
   *
   * <p>The key also selects the partition (a stable hash), so it must not change between
   * publishes of the same entity. It is passed to relays, which map it to the destination's own
   * ordering key (Kafka record key, JMS {@code JMSXGroupID}).
   *
   * @return the group key, or {@code null} (the default) for an unordered message
   */
  default String groupKey() {
    return null;
  }

  /**
   * Headers stored with the message and handed to the relay, which passes them on (JMS string
   * properties, Kafka headers). Names starting with {@code outbox-} are reserved for the headers
   * Outboxer adds itself.
   *
   * @return the headers to store; empty by default, never {@code null}
   */
  default Map<String, String> headers() {
    return Map.of();
  }
}
