package dev.outboxer.jms;

import dev.outboxer.testing.TestRelayBatch;
import static dev.outboxer.jms.TestRecords.binary;
import static dev.outboxer.jms.TestRecords.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.ActiveMQSecurityException;
import org.apache.activemq.artemis.core.server.ServerSession;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerMessagePlugin;
import org.apache.activemq.artemis.core.transaction.Transaction;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The relay against a real broker with a plain (non-XA) connection factory: mapping and failures. */
class JmsRelayTest {

  /** Records carrying this header are refused by the broker, as an authorisation policy would. */
  private static final String REFUSE = "refuse";

  /** While the broker takes a record carrying this header, {@link #onLapse} runs. */
  private static final String LAPSE = "lapse";

  private static volatile Runnable onLapse = () -> {};

  private static EmbeddedArtemis broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = EmbeddedArtemis.start(new RefusingPolicy());
  }

  @AfterAll
  static void stopBroker() throws Exception {
    broker.close();
  }

  @Test
  void deliversEachGroupInIdOrderWithTheOutboxProperties() throws Exception {
    broker.createQueue("ordered");
    OutboxRecord a1 = json(1, "order:1", "OrderPaid", "{\"orderId\":1}");
    OutboxRecord b1 = json(2, "order:2", "OrderPaid", "{\"orderId\":2}");
    OutboxRecord unordered = json(3, null, "Ping", "{}");
    OutboxRecord a2 = json(4, "order:1", "OrderShipped", "{\"orderId\":1}",
        Map.of("traceparent", "00-abc-01", "x-tenant", "acme", "JMSType", "spoofed"));
    OutboxRecord b2 = json(5, "order:2", "OrderShipped", "{\"orderId\":2}");
    OutboxRecord a3 = json(6, "order:1", "OrderClosed", "{\"orderId\":1}");
    TestRelayBatch batch =
        TestRelayBatch.of(Ordering.GROUP, a1, b1, unordered, a2, b2, a3).fencingToken(42);

    relay(broker.connectionFactory(), "ordered").relay(batch);

    assertThat(batch.outcomes()).hasSize(6);
    assertThat(batch.records()).allMatch(batch::confirmed);
    assertThat(broker.messageCount("ordered")).isEqualTo(6);
    List<Message> received = broker.receive("ordered", 6, 1000);
    assertThat(ids(received)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(ids(groupOf(received, "order:1"))).containsExactly(1L, 4L, 6L);
    assertThat(ids(groupOf(received, "order:2"))).containsExactly(2L, 5L);

    Message first = received.get(0);
    assertThat(first).isInstanceOf(TextMessage.class);
    assertThat(((TextMessage) first).getText()).isEqualTo("{\"orderId\":1}");
    assertThat(first.getJMSType()).isEqualTo("OrderPaid");
    assertThat(first.getStringProperty("JMSXGroupID")).isEqualTo("order:1");
    assertThat(first.getLongProperty(JmsMessageProperties.OUTBOX_ID)).isEqualTo(1L);
    assertThat(first.getStringProperty(JmsMessageProperties.OUTBOX_GROUP_KEY)).isEqualTo("order:1");
    assertThat(first.getStringProperty(JmsMessageProperties.OUTBOX_NAME)).isEqualTo("orders");
    assertThat(first.getStringProperty(JmsMessageProperties.OUTBOX_TYPE)).isEqualTo("OrderPaid");
    assertThat(first.getStringProperty(JmsMessageProperties.OUTBOX_CONTENT_TYPE))
        .isEqualTo("application/json");
    assertThat(first.getObjectProperty(JmsMessageProperties.OUTBOX_PARTITION)).isEqualTo(0);
    assertThat(first.getObjectProperty(JmsMessageProperties.OUTBOX_FENCING_TOKEN)).isEqualTo(42L);
    assertThat(first.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
    assertThat(first.getJMSPriority()).isEqualTo(4);
    assertThat(first.getJMSExpiration()).isZero();

    Message withoutGroup = received.get(2);
    assertThat(withoutGroup.propertyExists("JMSXGroupID")).isFalse();
    assertThat(withoutGroup.propertyExists(JmsMessageProperties.OUTBOX_GROUP_KEY)).isFalse();

    Message withHeaders = received.get(3);
    assertThat(withHeaders.getStringProperty("traceparent")).isEqualTo("00-abc-01");
    assertThat(withHeaders.getStringProperty("x_HYPHEN_tenant")).isEqualTo("acme");
    assertThat(withHeaders.getStringProperty("outboxHeader_JMSType")).isEqualTo("spoofed");
    assertThat(withHeaders.getJMSType()).isEqualTo("OrderShipped");
  }

  @Test
  void sendsANonTextPayloadAsABytesMessage() throws Exception {
    broker.createQueue("binary");
    byte[] payload = {0, 1, 2, (byte) 0xff};

    relay(broker.connectionFactory(), "binary")
        .relay(TestRelayBatch.of(Ordering.GROUP, binary(7, "g", "Blob", payload)));

    Message message = broker.receive("binary", 1, 1000).get(0);
    assertThat(message).isInstanceOf(BytesMessage.class);
    assertThat(message.getBody(byte[].class)).containsExactly(payload);
    assertThat(message.getStringProperty(JmsMessageProperties.OUTBOX_CONTENT_TYPE))
        .isEqualTo("application/octet-stream");
  }

  @Test
  void aTextualPayloadThatIsNotValidUtf8ArrivesAsABytesMessageWithTheExactBytes() throws Exception {
    broker.createQueue("not.utf8");
    // JSON whose string holds Latin-1 bytes (0xE9, 0xFF): no UTF-8 decoder accepts them.
    byte[] payload = {'{', '"', 'n', '"', ':', '"', 'c', 'a', 'f', (byte) 0xE9, (byte) 0xFF, '"',
        '}'};

    relay(broker.connectionFactory(), "not.utf8").relay(TestRelayBatch.of(Ordering.GROUP,
        TestRecords.withContentType(61, "application/json", payload)));

    Message message = broker.receive("not.utf8", 1, 1000).get(0);
    assertThat(message).as("not text in its charset: sent as bytes").isInstanceOf(BytesMessage.class);
    assertThat(message.getBody(byte[].class)).containsExactly(payload);
    assertThat(message.getStringProperty(JmsMessageProperties.OUTBOX_CONTENT_TYPE))
        .isEqualTo("application/json");
  }

  @Test
  void aTextPayloadInItsDeclaredCharsetArrivesAsThatTextOtherwiseAsItsExactBytes()
      throws Exception {
    broker.createQueue("charsets");
    byte[] latin1 = "caf\u00e9 cr\u00e8me".getBytes(StandardCharsets.ISO_8859_1);
    byte[] unknownCharset = "plain".getBytes(StandardCharsets.US_ASCII);
    // Valid UTF-16, but little-endian with a byte-order mark: Java's UTF-16 decodes it and
    // encodes the text back big-endian, so the text alone would not give these bytes back.
    byte[] utf16LittleEndian = {(byte) 0xFF, (byte) 0xFE, 'h', 0, 'i', 0};

    relay(broker.connectionFactory(), "charsets").relay(TestRelayBatch.of(Ordering.NONE,
        TestRecords.withContentType(62, "text/plain; charset=ISO-8859-1", latin1),
        TestRecords.withContentType(63, "text/plain;charset=\"x-no-such-charset\"", unknownCharset),
        TestRecords.withContentType(64, "text/plain;charset=UTF-16", utf16LittleEndian)));

    List<Message> received = broker.receive("charsets", 3, 1000);
    assertThat(ids(received)).containsExactly(62L, 63L, 64L);
    assertThat(received.get(0)).isInstanceOf(TextMessage.class);
    String text = ((TextMessage) received.get(0)).getText();
    assertThat(text).isEqualTo("caf\u00e9 cr\u00e8me");
    assertThat(text.getBytes(StandardCharsets.ISO_8859_1)).as("the bytes, in the declared charset")
        .containsExactly(latin1);
    assertThat(received.get(1)).as("a charset the relay cannot decode: sent as bytes")
        .isInstanceOf(BytesMessage.class);
    assertThat(received.get(1).getBody(byte[].class)).containsExactly(unknownCharset);
    assertThat(received.get(2)).as("text that does not encode back to the payload: sent as bytes")
        .isInstanceOf(BytesMessage.class);
    assertThat(received.get(2).getBody(byte[].class)).containsExactly(utf16LittleEndian);
  }

  @Test
  void appliesTheConfiguredDeliveryModePriorityAndTimeToLive() throws Exception {
    broker.createQueue("tuned");
    JmsSettings settings =
        new JmsSettings(Optional.empty(), "tuned", DeliveryMode.NON_PERSISTENT, 7, 60_000);
    long before = System.currentTimeMillis();

    relay(broker.connectionFactory(), "tuned", settings)
        .relay(TestRelayBatch.of(Ordering.GROUP, json(8, "g", "T", "{}")));

    Message message = broker.receive("tuned", 1, 1000).get(0);
    assertThat(message.getJMSDeliveryMode()).isEqualTo(DeliveryMode.NON_PERSISTENT);
    assertThat(message.getJMSPriority()).isEqualTo(7);
    assertThat(message.getJMSExpiration()).isBetween(before + 60_000, before + 70_000);
  }

  @Test
  void aMissingDestinationFailsEachRecordNamingItAndHoldsBackTheRestOfTheGroup() throws Exception {
    OutboxRecord a1 = json(11, "a", "T", "{}");
    OutboxRecord a2 = json(12, "a", "T", "{}");
    OutboxRecord b1 = json(13, "b", "T", "{}");
    OutboxRecord unordered = json(14, null, "T", "{}");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, a1, a2, b1, unordered);

    relay(broker.connectionFactory(), "no.such.queue").relay(batch);

    assertThat(batch.failure(a1))
        .isInstanceOf(JmsRelayException.class)
        .hasCauseInstanceOf(InvalidDestinationException.class)
        .hasMessageContaining("queue 'no.such.queue'")
        .hasMessageContaining("message 11")
        .hasMessageContaining("Outbox 'orders'")
        .hasMessageContaining("outbox.orders.jms.destination=no.such.queue");
    assertThat(batch.outcome(a2)).as("held back behind the failed a1").isNull();
    assertThat(batch.failure(b1)).hasCauseInstanceOf(InvalidDestinationException.class);
    assertThat(batch.failure(unordered)).hasCauseInstanceOf(InvalidDestinationException.class);
  }

  @Test
  void aDestinationTheBrokerForbidsFailsEachRecordWithTheBrokersReason() throws Exception {
    broker.createQueue("forbidden.plain");
    OutboxRecord a1 = json(15, "a", "T", "{}");
    OutboxRecord b1 = json(16, "b", "T", "{}");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, a1, b1);

    relay(broker.connectionFactory(), "forbidden.plain").relay(batch);

    assertThat(batch.failure(a1))
        .hasCauseInstanceOf(JMSSecurityException.class)
        .hasMessageContaining("queue 'forbidden.plain'")
        .hasMessageContaining("permission='SEND'");
    assertThat(batch.failure(b1)).hasCauseInstanceOf(JMSSecurityException.class);
    assertThat(broker.messageCount("forbidden.plain")).isZero();
  }

  @Test
  void aRefusedMessageFailsOnlyItsRecordWhileOtherGroupsFlow() throws Exception {
    broker.createQueue("refusing");
    OutboxRecord a1 = json(21, "a", "T", "{}", Map.of(REFUSE, "yes"));
    OutboxRecord a2 = json(22, "a", "T", "{}");
    OutboxRecord b1 = json(23, "b", "T", "{}");
    OutboxRecord unordered = json(24, null, "T", "{}");
    OutboxRecord b2 = json(25, "b", "T", "{}");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, a1, a2, b1, unordered, b2);

    relay(broker.connectionFactory(), "refusing").relay(batch);

    assertThat(batch.failure(a1))
        .hasCauseInstanceOf(JMSSecurityException.class)
        .hasMessageContaining("queue 'refusing'");
    assertThat(batch.outcome(a2)).isNull();
    assertThat(List.of(b1, unordered, b2)).allMatch(batch::confirmed);
    assertThat(broker.messageCount("refusing")).isEqualTo(3);
    assertThat(ids(broker.receive("refusing", 3, 1000))).containsExactly(23L, 24L, 25L);
  }

  @Test
  void totalOrderingHoldsBackEverythingAfterARefusedRecord() throws Exception {
    broker.createQueue("total");
    OutboxRecord first = json(31, "a", "T", "{}");
    OutboxRecord refused = json(32, "b", "T", "{}", Map.of(REFUSE, "yes"));
    OutboxRecord later = json(33, "a", "T", "{}");
    OutboxRecord unordered = json(34, null, "T", "{}");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.TOTAL, first, refused, later, unordered);

    relay(broker.connectionFactory(), "total").relay(batch);

    assertThat(batch.confirmed(first)).isTrue();
    assertThat(batch.failure(refused)).hasCauseInstanceOf(JMSSecurityException.class);
    assertThat(batch.outcome(later)).isNull();
    assertThat(batch.outcome(unordered)).isNull();
    assertThat(broker.messageCount("total")).isEqualTo(1);
    assertThat(ids(broker.receive("total", 1, 1000))).containsExactly(31L);
  }

  @Test
  void aClaimThatLapsesDuringASendStopsTheBatchAndConfirmsNothingAfterIt() throws Exception {
    broker.createQueue("lapsing");
    OutboxRecord a1 = json(35, "a", "T", "{}");
    OutboxRecord b1 = json(36, "b", "T", "{}", Map.of(LAPSE, "yes"));
    OutboxRecord a2 = json(37, "a", "T", "{}");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, a1, b1, a2);
    onLapse = batch::loseClaim;
    try {
      relay(broker.connectionFactory(), "lapsing").relay(batch);
    } finally {
      onLapse = () -> {};
    }

    assertThat(batch.confirmed()).containsExactly(a1);
    assertThat(batch.outcome(b1)).as("delivered after the claim lapsed: not confirmed").isNull();
    assertThat(batch.outcome(a2)).isNull();
    assertThat(batch.violations()).isEmpty();
    assertThat(ids(broker.receive("lapsing", 3, 500))).as("nothing sent after the lapse")
        .containsExactly(35L, 36L);
  }

  @Test
  void aPassedDeadlineFailsTheBatchBeforeAnythingIsSent() throws Exception {
    broker.createQueue("late");
    TestRelayBatch batch = new TestRelayBatch(
        "orders", Ordering.GROUP, Instant.now().minusSeconds(1), List.of(json(41, "a", "T", "{}")));

    assertThatThrownBy(() -> relay(broker.connectionFactory(), "late").relay(batch))
        .isInstanceOf(JmsRelayException.class)
        .hasMessageContaining("relay timeout of outbox 'orders' passed");
    assertThat(batch.outcomes()).isEmpty();
    assertThat(broker.messageCount("late")).isZero();
  }

  @Test
  void aClosedRelayRefusesFurtherBatches() {
    JmsRelay relay = relay(broker.connectionFactory(), "closed");
    relay.close();

    assertThatThrownBy(() -> relay.relay(TestRelayBatch.of(Ordering.NONE, json(51, null, "T", "{}"))))
        .isInstanceOf(JmsRelayException.class)
        .hasMessageContaining("closed");
  }

  static JmsRelay relay(ConnectionFactory factory, String queue) {
    return relay(factory, queue, new JmsSettings(Optional.empty(), queue, DeliveryMode.PERSISTENT, 4, 0));
  }

  static JmsRelay relay(ConnectionFactory factory, String queue, JmsSettings settings) {
    return new JmsRelay("orders", factory, "test factory", new ActiveMQQueue(queue),
        settings, Clock.systemUTC());
  }

  static List<Long> ids(List<Message> messages) throws JMSException {
    List<Long> ids = new java.util.ArrayList<>();
    for (Message message : messages) {
      ids.add(message.getLongProperty(JmsMessageProperties.OUTBOX_ID));
    }
    return ids;
  }

  private static List<Message> groupOf(List<Message> messages, String groupKey) throws JMSException {
    List<Message> group = new java.util.ArrayList<>();
    for (Message message : messages) {
      if (groupKey.equals(message.getStringProperty("JMSXGroupID"))) {
        group.add(message);
      }
    }
    return group;
  }

  /**
   * A broker-side policy that refuses messages carrying the {@value #REFUSE} property. Only for
   * non-transacted sends: in a transacted or XA session Artemis logs such a refusal and commits
   * without the message (see the README's gotchas).
   */
  static final class RefusingPolicy implements ActiveMQServerMessagePlugin {
    @Override
    public void beforeSend(ServerSession session, Transaction tx,
        org.apache.activemq.artemis.api.core.Message message, boolean direct, boolean noAutoCreate)
        throws ActiveMQException {
      if (message.containsProperty(REFUSE)) {
        throw new ActiveMQSecurityException("the test broker's policy refuses this message");
      }
      if (message.containsProperty(LAPSE)) {
        onLapse.run();
      }
    }
  }
}
