package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outboxer.spi.StandardHeaders;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reading the inbox's three values from the headers the RabbitMQ relay writes, as the client hands
 * them to a consumer: AMQP long strings.
 */
class RabbitInboxMessageTest {

  @Test
  void readsOutboxGroupKeyAndIdFromTheRelaysHeaders() {
    assertThat(RabbitInboxMessage.from(delivery(headers("42", "orders", "order:7"))))
        .isEqualTo(new InboxMessage("orders", "order:7", 42));
    assertThat(RabbitInboxMessage.from(properties(headers("42", "orders", "order:7"))))
        .isEqualTo(new InboxMessage("orders", "order:7", 42));
  }

  @Test
  void aMessageWithoutGroupKeyHeaderIsAnUngroupedMessage() {
    assertThat(RabbitInboxMessage.from(delivery(headers("42", "orders", null))).groupKey()).isNull();
  }

  @Test
  void aMessageNotSentByTheRelayIsRefusedNamingTheMissingHeaderAndTheDelivery() {
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers(null, "orders", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("AMQP delivery 9 from exchange 'orders' (routing key 'g') has no outbox-id header");
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers("42", null, "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("no outbox-name header");
    assertThatThrownBy(() -> RabbitInboxMessage.from(new AMQP.BasicProperties.Builder().messageId("m-1").build()))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("AMQP message 'm-1' has no outbox-id header");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-3", "+", "", "99999999999999999999", "4x2"})
  void anIdHeaderThatIsNoOutboxIdIsRefusedNamingTheHeaderAndValue(String id) {
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers(id, "orders", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("AMQP delivery 9")
        .hasMessageContaining("outbox-id header '" + id + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t"})
  void anEmptyOrBlankGroupKeyHeaderIsRefusedNotTakenForAGroup(String groupKey) {
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers("42", "orders", groupKey))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header")
        .hasMessageContaining("blank");
  }

  @Test
  void aGroupKeyOrOutboxNameTheOutboxWouldRefuseIsRefusedNamingTheHeader() {
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers("42", "orders", "order\u00001"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header 'order\\u00001'")
        .hasMessageContaining("NUL");
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers("42", "orders", "k".repeat(256)))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("256 characters");
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers("42", "", "g"))))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-name header ''");
  }

  /** Decoded leniently, two different keys would both become U+FFFD and be taken for one group. */
  @Test
  void aHeaderThatIsNotUtf8IsRefusedInsteadOfDecodedToReplacementCharacters() {
    Map<String, Object> headers = headers("42", "orders", null);
    headers.put(StandardHeaders.GROUP_KEY, LongStringHelper.asLongString(new byte[] {'o', (byte) 0xC3, (byte) 0x28}));

    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header 6fc328 (hex), which is not valid UTF-8");
  }

  @Test
  void aHeaderThatIsNotTextOrHasNoValueIsRefused() {
    Map<String, Object> headers = headers(null, "orders", null);
    headers.put(StandardHeaders.ID, 42L);
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(headers)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-id header of type java.lang.Long ('42')");

    Map<String, Object> empty = headers("42", "orders", null);
    empty.put(StandardHeaders.GROUP_KEY, null);
    assertThatThrownBy(() -> RabbitInboxMessage.from(delivery(empty)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("outbox-group-key header without a value");
  }

  private static Map<String, Object> headers(String id, String outbox, String groupKey) {
    Map<String, Object> headers = new HashMap<>();
    put(headers, StandardHeaders.ID, id);
    put(headers, StandardHeaders.OUTBOX, outbox);
    put(headers, StandardHeaders.GROUP_KEY, groupKey);
    return headers;
  }

  private static void put(Map<String, Object> headers, String name, String value) {
    if (value != null) {
      headers.put(name, LongStringHelper.asLongString(value));
    }
  }

  private static AMQP.BasicProperties properties(Map<String, Object> headers) {
    return new AMQP.BasicProperties.Builder().headers(headers).build();
  }

  private static Delivery delivery(Map<String, Object> headers) {
    return new Delivery(new Envelope(9, false, "orders", "g"), properties(headers), new byte[0]);
  }
}
