package dev.outboxer.spi;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * A stored message as a relay sees it. Immutable.
 *
 * <p>A relay should pass {@link #id()}, {@link #groupKey()}, {@link #outbox()} and {@link #type()}
 * on to the destination (as JMS properties or Kafka headers) so that consumers can drop the
 * duplicates that at-least-once delivery allows: within a group, ids only increase.
 *
 * @param id the message id, unique across outboxes, increasing in insertion order
 * @param outbox the outbox name
 * @param partition the partition the message belongs to
 * @param groupKey the group key, or {@code null} for an unordered message
 * @param type the message type (see {@link dev.outboxer.Outboxed#type()})
 * @param contentType the payload's media type as stated by the {@link PayloadCodec}, for example
 *     {@code application/json}
 * @param payload the encoded message; each call of the accessor returns a fresh copy
 * @param headers the message's headers; unmodifiable, never {@code null}
 * @param attempts how many earlier delivery attempts failed (0 on the first attempt)
 * @param createdAt when the message was published
 */
public record OutboxRecord(
    long id,
    String outbox,
    int partition,
    String groupKey,
    String type,
    String contentType,
    byte[] payload,
    Map<String, String> headers,
    int attempts,
    Instant createdAt) {

  /** Copies the payload and headers so that the record stays immutable. */
  public OutboxRecord {
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(createdAt, "createdAt");
    payload = payload.clone();
    headers = Map.copyOf(headers);
  }

  @Override
  public byte[] payload() {
    return payload.clone();
  }

  /**
   * @return the payload decoded as UTF-8, for text content types such as JSON
   */
  public String payloadText() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  /**
   * @return whether the content type is textual ({@code text/*}, JSON or XML), so that a relay can
   *     send the payload as text rather than bytes
   */
  public boolean isTextPayload() {
    String type = contentType.toLowerCase(java.util.Locale.ROOT);
    return type.startsWith("text/") || type.contains("json") || type.contains("xml");
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof OutboxRecord that
        && id == that.id
        && partition == that.partition
        && attempts == that.attempts
        && outbox.equals(that.outbox)
        && Objects.equals(groupKey, that.groupKey)
        && type.equals(that.type)
        && contentType.equals(that.contentType)
        && Arrays.equals(payload, that.payload)
        && headers.equals(that.headers)
        && createdAt.equals(that.createdAt);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(id) * 31 + outbox.hashCode();
  }

  @Override
  public String toString() {
    return "OutboxRecord[id=" + id + ", outbox=" + outbox + ", partition=" + partition
        + ", groupKey=" + groupKey + ", type=" + type + ", attempts=" + attempts + "]";
  }
}
