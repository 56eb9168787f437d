package dev.outboxer.sqs;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.StandardHeaders;

/**
 * What an SQS message cannot carry, checked at every publish: each header must be a valid message
 * attribute (name rules, a non-empty value of characters SQS accepts), and neither the payload nor
 * the headers may alone exceed what is left of the maximum message size once the relay's own
 * attributes are counted at their smallest. Those limits refuse only what SQS could never carry;
 * what depends on the whole message (its exact size, the number of attributes, the group key's
 * characters) is checked by the relay before it sends, which fails such a record. Immutable and
 * thread-safe.
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
