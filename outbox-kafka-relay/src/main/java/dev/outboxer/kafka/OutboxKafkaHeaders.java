package dev.outboxer.kafka;

import dev.outboxer.spi.StandardHeaders;

/**
 * The names of the Kafka headers the relay adds to every record, for consumers: the {@link
 * StandardHeaders} names, unchanged. All values are UTF-8 strings.
 *
 * <p>Consumers drop duplicates with {@link #ID}: delivery is at least once, and within one group
 * key ids only increase, so a record whose id is not greater than the last one processed for its
 * key is a duplicate. With the default {@code fencing=transactional} a consumer must read with
 * {@code isolation.level=read_committed}: only then are the records of a stale node (whose
 * transaction the broker aborted) invisible. The message's own headers are passed on unchanged,
 * except names starting with {@code outbox-}, which are reserved for these.
 */
public final class OutboxKafkaHeaders {

  /** The message id, a decimal number, for example {@code 42}. Always present. */
  public static final String ID = StandardHeaders.ID;

  /** The message type (see {@link dev.outboxer.Outboxed#type()}). Always present. */
  public static final String TYPE = StandardHeaders.TYPE;

  /** The name of the outbox the message was published to. Always present. */
  public static final String OUTBOX = StandardHeaders.OUTBOX;

  /**
   * The group key, also the record key. Absent for a message without a group key (the record key
   * is then {@code null} too).
   */
  public static final String GROUP_KEY = StandardHeaders.GROUP_KEY;

  /** The payload's media type as the payload codec states it, e.g. {@code application/json}. */
  public static final String CONTENT_TYPE = StandardHeaders.CONTENT_TYPE;

  /** The outbox partition the message was relayed from, a decimal number. Always present. */
  public static final String PARTITION = StandardHeaders.PARTITION;

  /**
   * The fencing token of the partition claim that sent the record, a decimal number. Always
   * present. Within one outbox partition, a record with a lower token than one already consumed
   * was sent by a node that had lost its claim (see {@link dev.outboxer.spi.RelayBatch}).
   */
  public static final String FENCING_TOKEN = StandardHeaders.FENCING_TOKEN;

  /** The prefix of the header names reserved for Outboxer. */
  public static final String RESERVED_PREFIX = StandardHeaders.RESERVED_PREFIX;

  private OutboxKafkaHeaders() {}
}
