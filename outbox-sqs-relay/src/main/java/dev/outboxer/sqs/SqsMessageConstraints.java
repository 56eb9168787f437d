package dev.outboxer.sqs;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.StandardHeaders;

/**
 * What an SQS message cannot carry, checked at every publish: each header must be a valid message
 * attribute (name rules, a non-empty value of characters SQS accepts), and neither the payload nor
 * the headers may alone exceed what is left of the maximum message size once the relay's own
 * attributes are counted at their smallest; the group key must hold only characters SQS accepts in
 * the {@code outbox-group-key} attribute, and the payload must not be empty (SQS refuses an empty
 * body). Those limits refuse only what SQS could never carry, so that such a message is refused at
 * once rather than failing at every send and holding back its group; what depends on the whole
 * message (its exact size, the number of attributes) is checked by the relay before it sends,
 * which fails such a record. Immutable and thread-safe.
 */
final class SqsMessageConstraints implements MessageConstraints {

  private final long maxPayloadBytes;
  private final long maxHeaderBytes;

  SqsMessageConstraints(SqsSettings settings) {
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
