package dev.outboxer.kafka;

import dev.outboxer.spi.MessageConstraints;

/**
 * What a Kafka record of this outbox can carry: the producer refuses a record larger than {@code
 * max.request.size} (and {@code buffer.memory}), key, headers and framing included. The relay
 * reserves {@link #RESERVED_BYTES} of that for the message's headers ({@link #MAX_HEADER_BYTES} at
 * most), the relay's own headers, the record key (the group key, at most 255 characters) and the
 * record framing; the payload gets the rest.
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
   * Room kept beside the payload: the message's headers, the relay's seven headers (names, ids,
   * outbox, type and content type of up to 255 characters), a group key of up to 255 characters
   * (4 bytes each in UTF-8) and Kafka's record and batch framing.
   */
  static final long RESERVED_BYTES = MAX_HEADER_BYTES + 8 * 1024;

  private final long maxPayloadBytes;

  KafkaConstraints(long maxPayloadBytes) {
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /** The payload limit for a producer whose {@code max.request.size} is {@code maxRequestSize}. */
  static KafkaConstraints forMaxRequestSize(long maxRequestSize) {
    return new KafkaConstraints(maxRequestSize - RESERVED_BYTES);
  }

  @Override
  public long maxPayloadBytes() {
    return maxPayloadBytes;
  }

  @Override
  public long maxHeaderBytes() {
    return MAX_HEADER_BYTES;
  }

  @Override
  public String toString() {
    return "KafkaConstraints[maxPayloadBytes=" + maxPayloadBytes + ", maxHeaderBytes="
        + MAX_HEADER_BYTES + "]";
  }
}
