package dev.outboxer.sqs;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.StandardHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Maps an outbox record to a SendMessageBatch entry: the body, the message attributes, and on FIFO
 * queues the MessageGroupId and MessageDeduplicationId. See the package documentation for what a
 * consumer receives. Checks again what {@link SqsMessageConstraints} checks at publish (the number
 * of attributes, the size of the whole message, the type's and group key's characters, an empty
 * body), for records published before those checks or by a core that only asks the size-only
 * check: a record that breaks one of these can never be sent, so it is refused here with a reason
 * rather than by SQS.
 */
final class SqsMessageMapping {

  /** A record ready to send, or the reason it can never be sent. */
  record Mapped(OutboxRecord record, SendMessageBatchRequestEntry entry, long size, String refusal) {
    boolean refused() {
      return refusal != null;
    }
  }

  private final SqsSettings settings;

  SqsMessageMapping(SqsSettings settings) {
    this.settings = settings;
  }

  /**
   * @param record the record
   * @param entryId the entry's id within its SendMessageBatch call (unique per call)
   * @param fencingToken the batch's fencing token
   */
  Mapped map(OutboxRecord record, String entryId, long fencingToken) {
    Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
    // The application's headers, in name order; reserved names were rejected at publish.
    for (Map.Entry<String, String> header : new TreeMap<>(record.headers()).entrySet()) {
      if (!header.getKey().startsWith(StandardHeaders.RESERVED_PREFIX)) {
        attributes.put(header.getKey(), string(header.getValue()));
      }
    }
    attributes.put(StandardHeaders.ID, number(record.id()));
    attributes.put(StandardHeaders.OUTBOX, string(record.outbox()));
    attributes.put(StandardHeaders.TYPE, string(record.type()));
    attributes.put(StandardHeaders.CONTENT_TYPE, string(record.contentType()));
    attributes.put(StandardHeaders.PARTITION, number(record.partition()));
    attributes.put(StandardHeaders.FENCING_TOKEN, number(fencingToken));
    int invalidInType = SqsRules.firstInvalidCharacter(record.type());
    if (invalidInType >= 0) {
      return refused(record, "its type holds the character U+"
          + String.format("%04X", invalidInType) + ", which SQS refuses in the "
          + StandardHeaders.TYPE + " message attribute");
    }
    if (record.groupKey() != null) {
      int invalid = SqsRules.firstInvalidCharacter(record.groupKey());
      if (invalid >= 0) {
        return refused(record, "its group key holds the character U+"
            + String.format("%04X", invalid) + ", which SQS refuses in the "
            + StandardHeaders.GROUP_KEY + " message attribute");
      }
      attributes.put(StandardHeaders.GROUP_KEY, string(record.groupKey()));
    }
    String body = textBody(record.contentType(), record.payload());
    if (body == null) {
      body = Base64.getEncoder().encodeToString(record.payload());
      attributes.put(SqsMessageAttributes.BODY_ENCODING, string(SqsMessageAttributes.BASE64));
    }
    if (body.isEmpty()) {
      return refused(record, "its payload is empty, and SQS refuses an empty message body");
    }
    if (attributes.size() > SqsRules.MAX_ATTRIBUTES) {
      return refused(record, "it would need " + attributes.size() + " message attributes ("
          + (attributes.size() - record.headers().size()) + " of the relay's own and "
          + record.headers().size() + " headers), and SQS allows " + SqsRules.MAX_ATTRIBUTES
          + ": drop " + (attributes.size() - SqsRules.MAX_ATTRIBUTES) + " header(s)");
    }
    long size = SqsRules.utf8Length(body);
    for (Map.Entry<String, MessageAttributeValue> attribute : attributes.entrySet()) {
      size += SqsRules.attributeSize(attribute.getKey(), attribute.getValue().dataType(),
          attribute.getValue().stringValue());
    }
    if (size > settings.maxMessageSize()) {
      return refused(record, "it takes " + size + " bytes (body and message attributes), more"
          + " than the queue's maximum message size of " + settings.maxMessageSize() + " bytes ("
          + settings.fullKey(SqsRelayProvider.MAX_MESSAGE_SIZE) + ")");
    }
    SendMessageBatchRequestEntry.Builder entry = SendMessageBatchRequestEntry.builder()
        .id(entryId)
        .messageBody(body)
        .messageAttributes(attributes);
    if (settings.fifo()) {
      entry.messageGroupId(groupId(record))
          .messageDeduplicationId(settings.deduplicationIdPrefix() + record.id());
    }
    return new Mapped(record, entry.build(), size, null);
  }

  /**
   * The MessageGroupId on a FIFO queue: in {@code total} mode the one total group; otherwise the
   * group key (hashed if SQS would refuse it), or for a message without key one of the ungrouped
   * ids, picked by a stable hash of the message id so that a re-sent message keeps its group.
   */
  String groupId(OutboxRecord record) {
    if (settings.ordering() == Ordering.TOTAL) {
      return settings.totalGroupId();
    }
    if (record.groupKey() != null) {
      return SqsRules.groupIdOf(record.groupKey());
    }
    List<String> ids = settings.ungroupedGroupIds();
    return ids.get(Math.floorMod(mix(record.id()), ids.size()));
  }

  /**
   * Which header SQS would refuse as a message attribute, if any, to explain a refusal whose
   * message does not say (publish checks headers, but records published before the relay's
   * constraints applied, or by a core that does not check them, can still carry one).
   *
   * @return "header 'x' ..." or {@code null}
   */
  static String suspectHeader(OutboxRecord record) {
    for (Map.Entry<String, String> header : new TreeMap<>(record.headers()).entrySet()) {
      String name = SqsRules.checkAttributeName(header.getKey());
      String problem = name != null ? name : SqsRules.checkAttributeValue(header.getValue());
      if (problem != null) {
        return "header '" + header.getKey() + "' " + problem;
      }
    }
    return null;
  }

  /**
   * The payload as text if its content type is textual (JSON, XML, {@code text/*}), it is valid
   * UTF-8 and made only of characters SQS accepts in a body; else {@code null}: it goes as Base64.
   * {@link SqsMessageConstraints} decides the same way at publish.
   */
  static String textBody(String contentType, byte[] payload) {
    if (!isTextual(contentType)) {
      return null;
    }
    String text = utf8(payload);
    return text != null && SqsRules.firstInvalidCharacter(text) < 0 ? text : null;
  }

  /**
   * Why {@link #textBody} is {@code null} for this payload, completing "its payload goes as Base64
   * because ...".
   */
  static String whyBase64(String contentType, byte[] payload) {
    if (!isTextual(contentType)) {
      return "its content type '" + contentType + "' is not textual (JSON, XML or text/*)";
    }
    String text = utf8(payload);
    if (text == null) {
      return "it is not valid UTF-8";
    }
    return "it holds the character U+" + String.format("%04X", SqsRules.firstInvalidCharacter(text))
        + ", which SQS refuses in a message body";
  }

  /** As {@link OutboxRecord#isTextPayload()}. */
  private static boolean isTextual(String contentType) {
    String type = contentType.toLowerCase(java.util.Locale.ROOT);
    return type.startsWith("text/") || type.contains("json") || type.contains("xml");
  }

  /** The payload decoded strictly, or {@code null} if it is not valid UTF-8. */
  private static String utf8(byte[] payload) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(payload))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** MurmurHash3's 64-bit finaliser: spreads consecutive ids evenly. */
  private static int mix(long id) {
    long h = id;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return (int) (h ^ (h >>> 32));
  }

  private static Mapped refused(OutboxRecord record, String reason) {
    return new Mapped(record, null, 0, reason);
  }

  private static MessageAttributeValue string(String value) {
    return MessageAttributeValue.builder().dataType(SqsRules.STRING).stringValue(value).build();
  }

  private static MessageAttributeValue number(long value) {
    return MessageAttributeValue.builder().dataType(SqsRules.NUMBER)
        .stringValue(Long.toString(value)).build();
  }
}
