package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.spi.StandardHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Reading the inbox's three values from the headers the Kafka relay writes. */
class KafkaInboxMessageTest {

  @Test
  void readsOutboxGroupKeyAndIdFromTheRelaysHeaders() {
    ConsumerRecord<String, String> record = record(headers("42", "orders", "order:7"));

    assertThat(KafkaInboxMessage.from(record)).isEqualTo(new InboxMessage("orders", "order:7", 42));
  }

  @Test
  void aRecordWithoutGroupKeyHeaderIsAnUngroupedMessage() {
    assertThat(KafkaInboxMessage.from(record(headers("42", "orders", null))).groupKey()).isNull();
  }

  @Test
  void aRecordNotSentByTheRelayIsRefusedNamingTheMissingHeader() {
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers(null, "orders", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("Kafka record topic-1@5 has no outbox-id header");
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers("42", null, "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("no outbox-name header");
  }

  @Test
  void anIdThatIsNotANumberIsRefused() {
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers("4x2", "orders", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("the outbox-id header '4x2', not a decimal number");
  }

  private static RecordHeaders headers(String id, String outbox, String groupKey) {
    RecordHeaders headers = new RecordHeaders();
    // Written as the relay writes them, the last one wins: a stale duplicate header first.
    headers.add(StandardHeaders.ID, "1".getBytes(StandardCharsets.UTF_8));
    headers.remove(StandardHeaders.ID);
    add(headers, StandardHeaders.ID, id);
    add(headers, StandardHeaders.OUTBOX, outbox);
    add(headers, StandardHeaders.GROUP_KEY, groupKey);
    return headers;
  }

  private static void add(RecordHeaders headers, String name, String value) {
    if (value != null) {
      headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static ConsumerRecord<String, String> record(RecordHeaders headers) {
    return new ConsumerRecord<>("topic", 1, 5, 0L, TimestampType.CREATE_TIME, 0, 0, "key", "value", headers,
        Optional.empty());
  }
}
