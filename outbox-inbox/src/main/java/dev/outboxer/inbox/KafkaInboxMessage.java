package dev.outboxer.inbox;

import dev.outboxer.spi.StandardHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads the outbox, group key and id from the headers of a Kafka record sent by Outboxer's Kafka
 * relay ({@link StandardHeaders}: UTF-8 text). Needs {@code kafka-clients} on the class path (a Kafka
 * consumer has it); nothing else of the inbox does.
 *
 * <p>Read with {@code isolation.level=read_committed}: with the relay's default transactional
 * fencing, that hides the records of aborted batches, which the inbox would otherwise have to drop.
 *
 * <pre>{@code
 * for (ConsumerRecord<String, String> record : consumer.poll(timeout)) {
 *     transaction.begin();
 *     if (inbox.accept(KafkaInboxMessage.from(record))) {
 *         process(record);
 *     }
 *     transaction.commit();
 * }
 * }</pre>
 */
public final class KafkaInboxMessage {

  private KafkaInboxMessage() {}

  /**
   * @param record a record sent by the Kafka relay
   * @return its outbox, group key and id
   * @throws InboxException naming the header and its value if the record lacks the {@code outbox-id}
   *     or {@code outbox-name} header (it was not sent by an Outboxer relay), or a header holds what
   *     the relay never sends: an id that is not a positive decimal number, an outbox name or group
   *     key the outbox refuses (see {@link InboxMessage}: an empty or blank group key among them),
   *     a group-key header without value, or bytes that are not UTF-8
   */
  public static InboxMessage from(ConsumerRecord<?, ?> record) {
    String where = "Kafka record " + record.topic() + "-" + record.partition() + "@" + record.offset();
    String id = header(record, where, StandardHeaders.ID);
    String outbox = header(record, where, StandardHeaders.OUTBOX);
    if (id == null || outbox == null) {
      throw new InboxException(where + " has no " + (id == null ? StandardHeaders.ID : StandardHeaders.OUTBOX)
          + " header: it was not sent by Outboxer's Kafka relay, and the inbox cannot tell whether it is a"
          + " duplicate");
    }
    Header groupHeader = record.headers().lastHeader(StandardHeaders.GROUP_KEY);
    if (groupHeader != null && groupHeader.value() == null) {
      // The relay leaves the header out for an ungrouped message; one without value is not the relay's.
      throw new InboxException(where + " has an " + StandardHeaders.GROUP_KEY + " header without a value: the"
          + " Kafka relay leaves the header out for a message without group key, and the inbox cannot tell"
          + " which group it belongs to");
    }
    String groupKey = header(record, where, StandardHeaders.GROUP_KEY);
    long parsedId;
    try {
      parsedId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw new InboxException(where + " has the " + StandardHeaders.ID + " header '" + InboxMessage.printable(id)
          + "', not a decimal number", e);
    }
    refuse(where, StandardHeaders.ID, id, InboxMessage.idProblem(parsedId));
    refuse(where, StandardHeaders.OUTBOX, outbox, InboxMessage.outboxProblem(outbox));
    refuse(where, StandardHeaders.GROUP_KEY, groupKey, InboxMessage.groupKeyProblem(groupKey));
    return new InboxMessage(outbox, groupKey, parsedId);
  }

  private static void refuse(String where, String header, String value, String problem) {
    if (problem != null) {
      throw new InboxException(where + " has the " + header + " header '" + InboxMessage.printable(value) + "', which "
          + problem + ": it was not sent by Outboxer's Kafka relay, and the inbox cannot tell whether it is a"
          + " duplicate");
    }
  }

  /**
   * The header's value, decoded strictly: lenient decoding would turn different invalid bytes into
   * the same U+FFFD and take two groups for one.
   */
  private static String header(ConsumerRecord<?, ?> record, String where, String name) {
    Header header = record.headers().lastHeader(name);
    if (header == null || header.value() == null) {
      return null;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(header.value()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new InboxException(where + " has the " + name + " header " + HexFormat.of().formatHex(header.value(), 0,
          Math.min(header.value().length, 64)) + (header.value().length > 64 ? "..." : "") + " (hex), which is not"
          + " valid UTF-8: the Kafka relay writes its headers as UTF-8", e);
    }
  }
}
