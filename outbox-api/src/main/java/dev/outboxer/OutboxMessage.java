package dev.outboxer;

import java.time.Instant;
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

  /**
   * The earliest time the message may be relayed, or {@code null} (the default) to relay it as soon
   * as its transaction commits. An instant, so it means the same on every node whatever its time
   * zone.
   *
   * <p>A delayed message waits in its partition exactly as a message waiting for its retry does:
   * in an outbox with {@link Ordering#GROUP} ordering it holds back the later messages of its own
   * group until it has been relayed (so the group's order is kept), and nothing else; a delayed
   * message without a group key waits alone; in {@link Ordering#TOTAL} ordering it holds back every
   * later message of its partition; in {@link Ordering#NONE} ordering it holds back nothing.
   *
   * <p>Guarantees: the message is not handed to a relay before this time by the clock of the node
   * whose worker relays it (nodes' clocks should agree; a skew moves the time by as much). It is
   * relayed soon after the time comes: at the next poll of its partition, so within {@code
   * poll-interval} to {@code max-poll-interval} of an idle outbox, or later behind a backlog. Not
   * guaranteed: a precise moment; delivery is at-least-once, as for every message.
   *
   * <p>A time now or in the past means "as soon as possible"; a time further ahead than the outbox's
   * {@code max-delay} (365 days unless configured) is refused with {@link
   * InvalidOutboxMessageException} naming {@code notBefore}. Stored at microsecond precision.
   * Delayed messages are meant for minutes to days and moderate numbers: each read of a partition
   * lists its waiting messages, so millions of them waiting in one outbox slow its workers down;
   * a scheduler suits mass scheduling better.
   *
   * @return the earliest time to relay the message, or {@code null} for as soon as possible
   */
  default Instant notBefore() {
    return null;
  }
}
