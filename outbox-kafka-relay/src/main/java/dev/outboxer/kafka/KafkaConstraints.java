package dev.outboxer.kafka;

import dev.outboxer.spi.MessageConstraints;
import java.util.Map;

/**
 * What a Kafka record of this outbox can carry: the producer refuses a record larger than {@code
 * max.request.size} (and {@code buffer.memory}), key, headers and framing included, by its own
 * upper bound of the record's size in a batch of its own. {@link #checkMessage} counts every
 * message the same way at publish (the payload, each header with the two varints that frame its
 * name and value, the record key, the relay's own headers with their largest possible values, and
 * Kafka's record and batch overhead) and refuses one the producer would refuse: such a record
 * could never be sent, and would only fail at every attempt.
 *
 * <p>{@link #maxPayloadBytes()} is the payload limit without counting the message: {@code
 * max.request.size} less {@link #RESERVED_BYTES}. A message within it and within {@link
 * #MAX_HEADER_BYTES} of headers can still be refused by {@link #checkMessage} when its headers are
 * many and tiny (each costs at least 2 bytes of framing beyond its name and value).
 *
 * <p>Not checked here, because the relay cannot know it without asking the brokers: the topic's
 * {@code max.message.bytes} (broker default about 1 MiB, the same as the producer's default
 * {@code max.request.size}). A topic configured smaller refuses larger records at send time; such a
 * record fails alone and holds back its group.
 */
final class KafkaConstraints implements MessageConstraints {

  /** The headers a message may carry, names and values in UTF-8: the core's own limit. */
  static final long MAX_HEADER_BYTES = 64 * 1024;

  /**
   * Room kept beside the payload by {@link #maxPayloadBytes()}: the message's headers, the relay's
   * seven headers (names, ids, outbox, type and content type of up to 255 characters), a group key
   * of up to 255 characters (4 bytes each in UTF-8) and Kafka's record and batch framing.
   * {@link #checkMessage} counts the actual message.
   */
  static final long RESERVED_BYTES = MAX_HEADER_BYTES + 8 * 1024;

  /** Kafka's {@code DefaultRecordBatch.RECORD_BATCH_OVERHEAD}: the batch header of one record. */
  static final int RECORD_BATCH_OVERHEAD = 61;

  /**
   * Kafka's {@code DefaultRecord.MAX_RECORD_OVERHEAD}: the record's length, attributes, timestamp
   * and offset deltas at their largest.
   */
  static final int MAX_RECORD_OVERHEAD = 21;

  /** The longest message type: the core's 255 characters, 4 bytes each in UTF-8 at most. */
  static final int MAX_TYPE_BYTES = 255 * 4;

  /** The longest decimal positive long (ids and fencing tokens are positive). */
  private static final int MAX_LONG_DIGITS = 19;

  /** The longest decimal non-negative int (outbox partitions). */
  private static final int MAX_INT_DIGITS = 10;

  private final String outbox;
  private final long maxRecordBytes;
  private final String limitName;
  private final long maxPayloadBytes;

  /**
   * @param outbox the outbox name, sent as {@link OutboxKafkaHeaders#OUTBOX}
   * @param maxRecordBytes the largest record the producer accepts
   * @param limitName what sets that limit, for refusals, e.g. {@code
   *     outbox.orders.kafka.max.request.size}
   */
  KafkaConstraints(String outbox, long maxRecordBytes, String limitName) {
    this.outbox = outbox;
    this.maxRecordBytes = maxRecordBytes;
    this.limitName = limitName;
    this.maxPayloadBytes = maxRecordBytes - RESERVED_BYTES;
  }

  /** The constraints of an outbox's validated settings. */
  static KafkaConstraints of(KafkaRelayConfig settings) {
    return new KafkaConstraints(settings.outbox(), settings.maxRequestSize(),
        settings.maxRequestSizeKey());
  }

  @Override
  public long maxPayloadBytes() {
    return maxPayloadBytes;
  }

  @Override
  public long maxHeaderBytes() {
    return MAX_HEADER_BYTES;
  }

  /**
   * Refuses a message whose record would exceed the producer's limit, naming the sizes. The
   * relay's own headers are counted with their largest values (the message's type is not known
   * here), so a message is refused up to about 1 KB before the producer would refuse it.
   */
  @Override
  public String checkMessage(
      String groupKey, String contentType, long payloadBytes, Map<String, String> headers) {
    long headerCount = 0;
    long headerBytes = 0;
    long headerRecordBytes = 0;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      if (header.getKey().startsWith(OutboxKafkaHeaders.RESERVED_PREFIX)) {
        continue; // not sent (and refused at publish before this is asked)
      }
      long name = utf8Length(header.getKey());
      long value = utf8Length(header.getValue());
      headerCount++;
      headerBytes += name + value;
      headerRecordBytes += framed(name) + framed(value);
    }
    long size = recordBytes(groupKey, contentType, payloadBytes, headerCount, headerRecordBytes);
    if (size <= maxRecordBytes) {
      return null;
    }
    long room = Math.max(0, payloadBytes - (size - maxRecordBytes));
    return "would be a Kafka record of up to " + size + " bytes: " + payloadBytes + " bytes of "
        + "payload, " + headerCount + " headers of " + headerBytes + " bytes (names and values) that "
        + "take " + headerRecordBytes + " bytes in the record with Kafka's framing of each, the "
        + "record key, the relay's own headers and Kafka's overhead; the producer refuses records "
        + "larger than " + limitName + " = " + maxRecordBytes + " bytes. With these headers at "
        + "most about " + room + " bytes of payload fit; fewer, longer headers take less room";
  }

  /**
   * Kafka's upper bound of the size of the record the relay makes of such a message, in a batch
   * of its own, as the producer counts it before it accepts a record ({@code
   * AbstractRecords.estimateSizeInBytesUpperBound}), with the relay's headers at their largest.
   *
   * @param headerRecordBytes the message's own headers as the record holds them ({@link #framed}
   *     name and value each)
   */
  long recordBytes(String groupKey, String contentType, long payloadBytes, long headerCount,
      long headerRecordBytes) {
    long size = RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD;
    size += groupKey == null ? framedNull() : framed(utf8Length(groupKey));
    size += framed(payloadBytes);
    long relayHeaderCount = groupKey == null ? 6 : 7;
    size += varintBytes(headerCount + relayHeaderCount);
    size += headerRecordBytes;
    size += relayHeader(OutboxKafkaHeaders.ID, MAX_LONG_DIGITS);
    size += relayHeader(OutboxKafkaHeaders.TYPE, MAX_TYPE_BYTES);
    size += relayHeader(OutboxKafkaHeaders.OUTBOX, utf8Length(outbox));
    if (groupKey != null) {
      size += relayHeader(OutboxKafkaHeaders.GROUP_KEY, utf8Length(groupKey));
    }
    size += relayHeader(OutboxKafkaHeaders.CONTENT_TYPE, utf8Length(contentType));
    size += relayHeader(OutboxKafkaHeaders.PARTITION, MAX_INT_DIGITS);
    size += relayHeader(OutboxKafkaHeaders.FENCING_TOKEN, MAX_LONG_DIGITS);
    return size;
  }

  private static long relayHeader(String name, long valueBytes) {
    return framed(utf8Length(name)) + framed(valueBytes);
  }

  /** A length-prefixed field: Kafka's varint of the length, then the bytes. */
  static long framed(long length) {
    return varintBytes(length) + length;
  }

  /** A null key: Kafka writes the varint of -1. */
  private static long framedNull() {
    return varintBytes(-1);
  }

  /** The size of Kafka's zig-zag varint of an int ({@code ByteUtils.sizeOfVarint}). */
  static int varintBytes(long value) {
    long zigZag = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((zigZag & ~0x7FL) != 0) {
      bytes++;
      zigZag >>>= 7;
    }
    return bytes;
  }

  /** The UTF-8 length, counted without encoding (this runs for every header at every publish). */
  static long utf8Length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  @Override
  public String toString() {
    return "KafkaConstraints[maxPayloadBytes=" + maxPayloadBytes + ", maxHeaderBytes="
        + MAX_HEADER_BYTES + ", maxRecordBytes=" + maxRecordBytes + "]";
  }
}
