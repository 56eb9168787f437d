package dev.outboxer.inbox;

import dev.outboxer.spi.StandardHeaders;
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
    Header groupHeader = record.headers().lastHeader(StandardHeaders.GROUP_KEY);
    if (groupHeader != null && groupHeader.value() == null) {
      // The relay leaves the header out for an ungrouped message; one without value is not the relay's.
      throw new InboxException(where + " has an " + StandardHeaders.GROUP_KEY + " header without a value: the"
          + " Kafka relay leaves the header out for a message without group key, and the inbox cannot tell"
          + " which group it belongs to");
    }
    String groupKey = header(record, where, StandardHeaders.GROUP_KEY);
    return InboxMessage.fromHeaders(where, "Kafka", id, outbox, groupKey);
  }

  /** The header's value as text (strict UTF-8), or null if absent. */
  private static String header(ConsumerRecord<?, ?> record, String where, String name) {
    Header header = record.headers().lastHeader(name);
    if (header == null || header.value() == null) {
      return null;
    }
    return InboxMessage.utf8Header(where, "Kafka", name, header.value());
  }
}
