package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.testing.TestRelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@code publish} refuses for an SQS outbox, and that the relay agrees at the limit. */
class SqsMessageConstraintsTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(10);

  private static RelayContext context(Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>();
    properties.put("queue-url", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo");
    properties.putAll(extra);
    return new RelayContext("orders", Ordering.GROUP, 1, RELAY_TIMEOUT, properties);
  }

  private static final MessageConstraints CONSTRAINTS =
      new SqsRelayProvider().constraints(context(Map.of()));

  /**
   * Issue 11, bad input: a group key with a character SQS refuses in the outbox-group-key attribute,
   * or an empty payload (SQS refuses an empty body), used to be accepted and then failed at every
   * send, holding back its group for good with max-attempts=infinity.
   */
  @ParameterizedTest(name = "group key {index}")
  @ValueSource(strings = {"a\u0001b", "a\uFFFE", "\u001F", "x\u000Bv"})
  void a_group_key_with_a_character_sqs_refuses_is_refused_at_publish(String key) {
    assertThat(CONSTRAINTS.checkMessage(key, "application/json", 10, Map.of()))
        .contains("group key", "U+", "SQS refuses");
  }

  @Test
  void an_empty_payload_is_refused_at_publish_as_sqs_refuses_an_empty_body() {
    assertThat(CONSTRAINTS.checkMessage("g", "application/octet-stream", 0, Map.of())).contains("empty");
  }

  @Test
  void a_group_key_of_characters_sqs_takes_and_a_one_byte_payload_pass() {
    assertThat(CONSTRAINTS.checkMessage("acme ünïcode 🎉 \t\n", "application/json", 1, Map.of())).isNull();
    assertThat(CONSTRAINTS.checkMessage(null, "application/json", 1, Map.of())).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"x-tenant", "trace.id", "Tenant_ID", "a", "awsx", "amazonia.x"})
  void a_valid_attribute_name_and_value_pass(String name) {
    assertThat(CONSTRAINTS.checkHeader(name, "acme ünïcode 🎉 \t\n")).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "a b | only letters, digits, '-', '_' and '.' are allowed",
    "tenänt | only letters, digits, '-', '_' and '.' are allowed",
    "a:b | only letters, digits, '-', '_' and '.' are allowed",
    ".hidden | may not start or end with '.' nor contain '..'",
    "trailing. | may not start or end with '.' nor contain '..'",
    "a..b | may not start or end with '.' nor contain '..'",
    "AWS.TraceHeader | names starting with 'AWS.' or 'Amazon.' (any case) are reserved by AWS",
    "amazon.x | names starting with 'AWS.' or 'Amazon.' (any case) are reserved by AWS",
  })
  void a_name_sqs_refuses_is_refused_at_publish(String name, String rule) {
    assertThat(CONSTRAINTS.checkHeader(name, "v"))
        .startsWith("is not a valid SQS message attribute name: ").endsWith(rule);
  }

  @Test
  void a_name_longer_than_256_characters_is_refused() {
    assertThat(CONSTRAINTS.checkHeader("n".repeat(256), "v")).isNull();
    assertThat(CONSTRAINTS.checkHeader("n".repeat(257), "v")).contains("1 to 256 characters");
  }

  @Test
  void an_empty_value_or_a_character_sqs_refuses_is_refused_at_publish() {
    assertThat(CONSTRAINTS.checkHeader("x", ""))
        .isEqualTo("has an empty value, which SQS refuses for a message attribute");
    assertThat(CONSTRAINTS.checkHeader("x", "bell\u0007")).startsWith(
        "has the character U+0007 in its value, which SQS refuses (allowed: tab, line feed,");
    assertThat(CONSTRAINTS.checkHeader("x", "\uFFFF")).startsWith("has the character U+FFFF");
  }

  @Test
  void the_size_limits_leave_room_for_the_relays_own_attributes_at_their_smallest() {
    // outbox-id + Number + 1, outbox-name + String + orders, outbox-type + String + 1 char,
    // outbox-content-type + String + 1 char, outbox-partition + Number + 1,
    // outbox-fencing-token + Number + 1
    long own = 16 + 23 + 18 + 26 + 23 + 27;
    assertThat(CONSTRAINTS.maxPayloadBytes()).isEqualTo(262_144 - own);
    assertThat(CONSTRAINTS.maxHeaderBytes()).isEqualTo(262_144 - own - 1 - 6);
    MessageConstraints larger =
        new SqsRelayProvider().constraints(context(Map.of("max-message-size", "1048576")));
    assertThat(larger.maxPayloadBytes()).isEqualTo(1_048_576 - own);
  }

  @Test
  void the_relay_sends_a_message_of_exactly_the_maximum_size_and_refuses_one_byte_more()
      throws Exception {
    String queue = SQS.createFifoQueue("largest.fifo");
    Map<String, String> settings = new HashMap<>(SQS.relaySettings(queue));
    RelayContext context =
        new RelayContext("orders", Ordering.GROUP, 1, RELAY_TIMEOUT, settings);
    long largest = new SqsRelayProvider().constraints(context).maxPayloadBytes();
    // The payload limit counts the own attributes at their smallest: id 1, partition 0, token 1,
    // one-character type; the content type "json" is 3 bytes longer than the smallest, and there
    // is no group key. (Publish counts ids and token at their largest, see below, and would refuse
    // both.)
    OutboxRecord fits = record(1, largest - 3);
    OutboxRecord tooLarge = record(2, largest - 2);
    TestRelayBatch batch = new TestRelayBatch(Ordering.NONE, List.of(fits, tooLarge),
        RELAY_TIMEOUT);

    try (Relay relay = new SqsRelayProvider().create(context)) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.confirmed()).containsExactly(fits);
    assertThat(batch.failure(tooLarge)).hasMessageContaining("it takes 262145 bytes (body and"
        + " message attributes), more than the queue's maximum message size of 262144 bytes");
    assertThat(new QueueReader(SQS.client(), queue).poll()).isEqualTo(1);
  }

  /**
   * The whole-message check at publish agrees with the relay's to the byte at the worst case (the
   * largest id, partition and fencing token): the largest message publish allows is sent, one
   * payload byte more is refused by both. As text and as Base64 (a binary content type, or JSON
   * holding U+FFFF), with a group key and headers.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"application/json", "application/octet-stream", "json with U+FFFF"})
  void the_largest_message_publish_allows_is_sent_with_the_largest_ids_and_one_byte_more_is_not(
      String kind) throws Exception {
    String queue = SQS.createFifoQueue("whole-" + kind.replaceAll("[^a-z]", "") + ".fifo");
    RelayContext context = new RelayContext("orders", Ordering.GROUP, 1, RELAY_TIMEOUT,
        new HashMap<>(SQS.relaySettings(queue)));
    MessageConstraints constraints = new SqsRelayProvider().constraints(context);
    String contentType = kind.startsWith("json") ? "application/json" : kind;
    Map<String, String> headers = Map.of("x-tenant", "acme ünïcode", "trace.id", "🎉");
    int largest = 0;
    for (int step = 1 << 20; step > 0; step >>= 1) {
      if (constraints.checkMessage("OrderPaid", "order-ü", contentType,
          payload(kind, largest + step), headers) == null) {
        largest += step;
      }
    }
    byte[] tooLarge = payload(kind, largest + 1);
    assertThat(constraints.checkMessage("OrderPaid", "order-ü", contentType, tooLarge, headers))
        .startsWith("would take up to ").contains("the queue takes at most 262144 bytes");
    OutboxRecord fits = new OutboxRecord(Long.MAX_VALUE - 1, "orders", Integer.MAX_VALUE,
        "order-ü", "OrderPaid", contentType, payload(kind, largest), headers, 0, Instant.now());
    OutboxRecord refused = new OutboxRecord(Long.MAX_VALUE, "orders", Integer.MAX_VALUE,
        "order-ü", "OrderPaid", contentType, tooLarge, headers, 0, Instant.now());
    TestRelayBatch batch = new TestRelayBatch(Ordering.NONE, List.of(fits, refused),
        RELAY_TIMEOUT).fencingToken(Long.MAX_VALUE);

    try (Relay relay = new SqsRelayProvider().create(context)) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.confirmed()).containsExactly(fits);
    assertThat(batch.failure(refused)).hasMessageContaining("more than the queue's maximum"
        + " message size of 262144 bytes");
    assertThat(new QueueReader(SQS.client(), queue).poll()).isEqualTo(1);
  }

  /** A payload of exactly {@code bytes} bytes of the kind. */
  private static byte[] payload(String kind, int bytes) {
    byte[] payload = new byte[bytes];
    java.util.Arrays.fill(payload, (byte) 'x');
    if (kind.endsWith("U+FFFF") && bytes >= 3) {
      System.arraycopy("\uFFFF".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, payload, 0, 3);
    }
    return payload;
  }

  @Test
  void a_message_needing_more_than_ten_attributes_is_refused_naming_them() {
    Map<String, String> four = Map.of("a", "1", "b", "2", "c", "3", "d", "4");
    assertThat(CONSTRAINTS.checkMessage("T", null, "application/json", new byte[] {'1'}, four))
        .isNull();
    assertThat(CONSTRAINTS.checkMessage("T", "g", "application/json", new byte[] {'1'}, four))
        .isEqualTo("would need 11 message attributes: 4 headers and 7 of the relay's own"
            + " (outbox-group-key for the group key); SQS allows 10 per message: drop 1 header(s)");
    assertThat(CONSTRAINTS.checkMessage("T", "g", "application/octet-stream", new byte[] {1},
        Map.of("a", "1", "b", "2")))
        .isNull();
    assertThat(CONSTRAINTS.checkMessage("T", "g", "application/octet-stream", new byte[] {1},
        Map.of("a", "1", "b", "2", "c", "3")))
        .isEqualTo("would need 11 message attributes: 3 headers and 8 of the relay's own"
            + " (outbox-group-key for the group key, outbox-body-encoding as the payload goes as"
            + " Base64: its content type 'application/octet-stream' is not textual (JSON, XML or"
            + " text/*)); SQS allows 10 per message: drop 1 header(s)");
    assertThat(CONSTRAINTS.checkMessage("T", null, "text/plain", new byte[] {(byte) 0xC3},
        Map.of("a", "1", "b", "2", "c", "3", "d", "4")))
        .contains("11 message attributes", "Base64: it is not valid UTF-8");
  }

  @Test
  void a_text_payload_that_must_go_as_base64_is_counted_as_base64_and_the_refusal_says_why() {
    byte[] payload = new byte[200_000];
    java.util.Arrays.fill(payload, (byte) 'x');
    assertThat(CONSTRAINTS.checkMessage("T", null, "application/json", payload, Map.of()))
        .isNull();
    System.arraycopy("\uFFFF".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, payload, 0, 3);
    assertThat(CONSTRAINTS.checkMessage("T", null, "application/json", payload, Map.of()))
        .startsWith("would take up to ")
        .contains(" bytes as SQS counts them: a body of 266668 bytes (the 200000 bytes of payload"
            + " in Base64: it holds the character U+FFFF, which SQS refuses in a message body), 0"
            + " headers of 0 bytes and the relay's own attributes of up to ")
        .contains("the queue takes at most 262144 bytes (outbox.orders.sqs.max-message-size)."
            + " With these attributes the payload can have at most ");
  }

  private static OutboxRecord record(long id, long payloadBytes) {
    byte[] payload = new byte[(int) payloadBytes];
    java.util.Arrays.fill(payload, (byte) 'x');
    // ungrouped on a FIFO queue: only the group id, which does not count towards the size
    return new OutboxRecord(id, "orders", 0, null, "T", "json", payload, Map.of(), 0,
        Instant.now());
  }
}
