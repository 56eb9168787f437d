package dev.outboxer.sqs;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.StandardHeaders;

/**
 * What an SQS message cannot carry, checked at every publish: each header must be a valid message
 * attribute (name rules, a non-empty value of characters SQS accepts); the group key and the
 * message type must hold only characters SQS accepts in the {@code outbox-group-key} and {@code
 * outbox-type} attributes; the payload must not be empty
 * (SQS refuses an empty body); and the whole message, as the relay will send it, must have at most
 * 10 message attributes and fit the queue's maximum message size (the body, as text or as Base64,
 * plus every attribute's name, data type and value). The relay's own attributes are counted with
 * their actual type, content type, outbox name and group key, and with the largest ids, partition
 * and fencing token they can have, so a message that passes can be sent whatever id and claim it
 * gets (it is refused up to 45 bytes before SQS would refuse it). The body is decided as the relay
 * decides it: a payload that cannot be text (not textual, not valid UTF-8, or holding a character
 * SQS refuses in a body, such as U+FFFF in a JSON string) goes as Base64, a third larger and with
 * one more attribute. Such messages are refused at once rather than failing at every send and
 * holding back their group. Immutable and thread-safe.
 */
final class SqsMessageConstraints implements MessageConstraints {

  /** The longest decimal of a positive long: message ids and fencing tokens. */
  static final String LARGEST_LONG = Long.toString(Long.MAX_VALUE);

  /** The longest decimal of a non-negative int: partitions (their count can be raised later). */
  static final String LARGEST_INT = Integer.toString(Integer.MAX_VALUE);

  private final String outbox;
  private final int maxMessageSize;
  private final String maxMessageSizeKey;
  private final long maxPayloadBytes;
  private final long maxHeaderBytes;

  SqsMessageConstraints(SqsSettings settings) {
    this.outbox = settings.outbox();
    this.maxMessageSize = settings.maxMessageSize();
    this.maxMessageSizeKey = settings.fullKey(SqsRelayProvider.MAX_MESSAGE_SIZE);
    long ownAttributes = smallestOwnAttributes(settings.outbox());
    this.maxPayloadBytes = settings.maxMessageSize() - ownAttributes;
    // At least a one-character body, and each header's data type name ("String") counts too.
    this.maxHeaderBytes = settings.maxMessageSize() - ownAttributes - 1 - SqsRules.STRING.length();
  }

  @Override
  public String checkHeader(String name, String value) {
    String badName = SqsRules.checkAttributeName(name);
    return badName != null ? badName : SqsRules.checkAttributeValue(value);
  }

  @Override
  public String checkMessage(String groupKey, String contentType, long payloadBytes,
      java.util.Map<String, String> headers) {
    if (groupKey != null) {
      int invalid = SqsRules.firstInvalidCharacter(groupKey);
      if (invalid >= 0) {
        return "has a group key holding the character U+" + String.format("%04X", invalid)
            + ", which SQS refuses in the " + StandardHeaders.GROUP_KEY + " message attribute (it takes"
            + " tab, line feed, carriage return and the characters from U+0020 on, except surrogates,"
            + " U+FFFE and U+FFFF)";
      }
    }
    if (payloadBytes == 0) {
      return "has an empty payload, and SQS refuses an empty message body";
    }
    return null;
  }

  /**
   * Counts the message as the relay will send it (see the class documentation) and refuses one
   * with more than 10 attributes or larger than the queue's maximum message size, saying what to
   * drop.
   */
  @Override
  public String checkMessage(String type, String groupKey, String contentType, byte[] payload,
      java.util.Map<String, String> headers) {
    int invalidInType = SqsRules.firstInvalidCharacter(type);
    if (invalidInType >= 0) {
      return "has a message type holding the character U+" + String.format("%04X", invalidInType)
          + ", which SQS refuses in the " + StandardHeaders.TYPE + " message attribute (it takes"
          + " tab, line feed, carriage return and the characters from U+0020 on, except surrogates,"
          + " U+FFFE and U+FFFF): change @Outboxed(type)";
    }
    String refused = checkMessage(groupKey, contentType, payload.length, headers);
    if (refused != null) {
      return refused;
    }
    // As Base64 the message is at its largest: if it fits so, it fits as text too, and the
    // payload need not be decoded (this runs in every publish).
    String asBase64 = refusal(type, groupKey, contentType, payload, headers, true);
    if (asBase64 == null) {
      return null;
    }
    boolean text = SqsMessageMapping.textBody(contentType, payload) != null;
    return text ? refusal(type, groupKey, contentType, payload, headers, false) : asBase64;
  }

  /** Why the message as text, or as Base64, would not fit in an SQS message; {@code null} if it does. */
  private String refusal(String type, String groupKey, String contentType, byte[] payload,
      java.util.Map<String, String> headers, boolean base64) {
    int headerCount = 0;
    long headerBytes = 0;
    for (java.util.Map.Entry<String, String> header : headers.entrySet()) {
      if (!header.getKey().startsWith(StandardHeaders.RESERVED_PREFIX)) {
        headerCount++;
        headerBytes += SqsRules.attributeSize(header.getKey(), SqsRules.STRING, header.getValue());
      }
    }
    int own = 6 + (groupKey != null ? 1 : 0) + (base64 ? 1 : 0);
    if (own + headerCount > SqsRules.MAX_ATTRIBUTES) {
      String extra = groupKey == null && !base64 ? ""
          : " (" + (groupKey != null ? StandardHeaders.GROUP_KEY + " for the group key" : "")
              + (groupKey != null && base64 ? ", " : "")
              + (base64 ? SqsMessageAttributes.BODY_ENCODING + " as the payload goes as Base64: "
                  + SqsMessageMapping.whyBase64(contentType, payload) : "") + ")";
      return "would need " + (own + headerCount) + " message attributes: " + headerCount
          + " headers and " + own + " of the relay's own" + extra + "; SQS allows "
          + SqsRules.MAX_ATTRIBUTES + " per message: drop "
          + (own + headerCount - SqsRules.MAX_ATTRIBUTES) + " header(s)";
    }
    long bodyBytes = base64 ? base64Length(payload.length) : payload.length;
    long ownBytes = largestOwnAttributes(type, groupKey, contentType, base64);
    long size = bodyBytes + ownBytes + headerBytes;
    if (size <= maxMessageSize) {
      return null;
    }
    long bodyRoom = Math.max(0, maxMessageSize - ownBytes - headerBytes);
    return "would take up to " + size + " bytes as SQS counts them: a body of " + bodyBytes
        + " bytes" + (base64 ? " (the " + payload.length + " bytes of payload in Base64: "
        + SqsMessageMapping.whyBase64(contentType, payload) + ")" : "") + ", " + headerCount
        + " headers of " + headerBytes + " bytes and the relay's own attributes of up to "
        + ownBytes + " bytes (names, data types and values); the queue takes at most "
        + maxMessageSize + " bytes (" + maxMessageSizeKey + "). With these attributes the payload"
        + " can have at most " + (base64
        ? bodyRoom / 4 * 3 + " bytes (" + bodyRoom / 4 * 4 + " in Base64)" : bodyRoom + " bytes");
  }

  /** The length of the standard Base64 of {@code bytes} bytes, with padding. */
  static long base64Length(long bytes) {
    return (bytes + 2) / 3 * 4;
  }

  /**
   * What the relay's own attributes of such a message take at most: its type, content type, group
   * key and this outbox's name as they are, the ids, partition and fencing token at their longest.
   */
  long largestOwnAttributes(String type, String groupKey, String contentType, boolean base64) {
    long size = SqsRules.attributeSize(StandardHeaders.ID, SqsRules.NUMBER, LARGEST_LONG)
        + SqsRules.attributeSize(StandardHeaders.OUTBOX, SqsRules.STRING, outbox)
        + SqsRules.attributeSize(StandardHeaders.TYPE, SqsRules.STRING, type)
        + SqsRules.attributeSize(StandardHeaders.CONTENT_TYPE, SqsRules.STRING, contentType)
        + SqsRules.attributeSize(StandardHeaders.PARTITION, SqsRules.NUMBER, LARGEST_INT)
        + SqsRules.attributeSize(StandardHeaders.FENCING_TOKEN, SqsRules.NUMBER, LARGEST_LONG);
    if (groupKey != null) {
      size += SqsRules.attributeSize(StandardHeaders.GROUP_KEY, SqsRules.STRING, groupKey);
    }
    if (base64) {
      size += SqsRules.attributeSize(SqsMessageAttributes.BODY_ENCODING, SqsRules.STRING,
          SqsMessageAttributes.BASE64);
    }
    return size;
  }

  @Override
  public long maxPayloadBytes() {
    return maxPayloadBytes;
  }

  @Override
  public long maxHeaderBytes() {
    return maxHeaderBytes;
  }

  @Override
  public String toString() {
    return "SqsMessageConstraints[maxPayloadBytes=" + maxPayloadBytes + ", maxHeaderBytes="
        + maxHeaderBytes + "]";
  }

  /**
   * The attributes every message carries, at their smallest: one-digit id, partition and token,
   * one-character type and content type, this outbox's name.
   */
  static long smallestOwnAttributes(String outbox) {
    return SqsRules.attributeSize(StandardHeaders.ID, SqsRules.NUMBER, "1")
        + SqsRules.attributeSize(StandardHeaders.OUTBOX, SqsRules.STRING, outbox)
        + SqsRules.attributeSize(StandardHeaders.TYPE, SqsRules.STRING, "T")
        + SqsRules.attributeSize(StandardHeaders.CONTENT_TYPE, SqsRules.STRING, "t")
        + SqsRules.attributeSize(StandardHeaders.PARTITION, SqsRules.NUMBER, "0")
        + SqsRules.attributeSize(StandardHeaders.FENCING_TOKEN, SqsRules.NUMBER, "1");
  }
}
