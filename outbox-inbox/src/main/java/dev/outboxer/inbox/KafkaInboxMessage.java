package dev.outboxer.inbox;

import dev.outboxer.spi.StandardHeaders;
import java.nio.charset.StandardCharsets;
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
   * @throws InboxException if the record lacks the {@code outbox-id} or {@code outbox-name} header
   *     (it was not sent by an Outboxer relay) or the id is not a number
   */
  public static InboxMessage from(ConsumerRecord<?, ?> record) {
    String where = "Kafka record " + record.topic() + "-" + record.partition() + "@" + record.offset();
    String id = header(record, StandardHeaders.ID);
    String outbox = header(record, StandardHeaders.OUTBOX);
    if (id == null || outbox == null) {
      throw new InboxException(where + " has no " + (id == null ? StandardHeaders.ID : StandardHeaders.OUTBOX)
          + " header: it was not sent by Outboxer's Kafka relay, and the inbox cannot tell whether it is a"
          + " duplicate");
    }
    try {
      return new InboxMessage(outbox, header(record, StandardHeaders.GROUP_KEY), Long.parseLong(id));
    } catch (NumberFormatException e) {
      throw new InboxException(where + " has the " + StandardHeaders.ID + " header '" + id
          + "', not a decimal number", e);
    }
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
