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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

  @ParameterizedTest
  @ValueSource(strings = {"0", "-3", "+", "", "99999999999999999999"})
  void anIdHeaderThatIsNoOutboxIdIsRefusedNamingTheHeaderAndValue(String id) {
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers(id, "orders", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("Kafka record topic-1@5")
        .hasMessageContaining("outbox-id header '" + id + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t"})
  void anEmptyOrBlankGroupKeyHeaderIsRefusedNotTakenForAGroup(String groupKey) {
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers("42", "orders", groupKey))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("Kafka record topic-1@5")
        .hasMessageContaining("outbox-group-key header")
        .hasMessageContaining("blank");
  }

  @Test
  void aGroupKeyHeaderTheOutboxWouldRefuseIsRefusedNamingTheHeader() {
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers("42", "orders", "order\u00001"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header 'order\\u00001'")
        .hasMessageContaining("NUL");
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers("42", "orders", "k".repeat(256)))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header")
        .hasMessageContaining("256 characters");
  }

  @Test
  void anOutboxNameHeaderTheOutboxWouldRefuseIsRefusedNamingTheHeader() {
    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers("42", "", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-name header ''");
  }

  /**
   * Bytes that are not UTF-8 were not written by the relay; decoded leniently, two different keys
   * would both become U+FFFD and be taken for one group, and one message dropped.
   */
  @Test
  void aHeaderThatIsNotUtf8IsRefusedInsteadOfDecodedToReplacementCharacters() {
    RecordHeaders headers = headers("42", "orders", null);
    headers.add(StandardHeaders.GROUP_KEY, new byte[] {'o', (byte) 0xC3, (byte) 0x28});

    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header")
        .hasMessageContaining("not valid UTF-8");
  }

  @Test
  void aGroupKeyHeaderWithoutValueIsRefused() {
    RecordHeaders headers = headers("42", "orders", null);
    headers.add(StandardHeaders.GROUP_KEY, null);

    assertThatThrownBy(() -> KafkaInboxMessage.from(record(headers)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header without a value");
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
