package dev.outboxer.kafka;

/**
 * The names of the Kafka headers the relay adds to every record, for consumers. All values are
 * UTF-8 strings.
 *
 * <p>Consumers drop duplicates with {@link #ID}: delivery is at least once, and within one group
 * key ids only increase, so a record whose id is not greater than the last one processed for its
 * key is a duplicate. The message's own headers are passed on unchanged, except names starting
 * with {@code outbox-}, which are reserved for these.
 */
public final class OutboxKafkaHeaders {

  /** The message id, a decimal number, for example {@code 42}. Always present. */
  public static final String ID = "outbox-id";

  /** The message type (see {@link dev.outboxer.Outboxed#type()}). Always present. */
  public static final String TYPE = "outbox-type";

  /** The name of the outbox the message was published to. Always present. */
  public static final String OUTBOX = "outbox-name";

  /**
   * The group key, also the record key. Absent for a message without a group key (the record key
   * is then {@code null} too).
   */
  public static final String GROUP_KEY = "outbox-group-key";

  /** The payload's media type as the payload codec states it, e.g. {@code application/json}. */
  public static final String CONTENT_TYPE = "outbox-content-type";

  /** The prefix of the header names reserved for Outboxer. */
  public static final String RESERVED_PREFIX = "outbox-";

  private OutboxKafkaHeaders() {}
}
