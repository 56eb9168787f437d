package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.spi.StandardHeaders;
import dev.outboxer.sqs.QueueReader.Received;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile but legal messages published through the real core (Weld, Narayana, PostgreSQL) to an
 * SQS outbox on ElasticMQ: each is either refused by {@code publish}, naming what was wrong, with
 * nothing written, or delivered. None may be accepted and then fail at every send, which with the
 * default {@code max-attempts=infinity} would hold back its group for good.
 *
 * <p>One FIFO queue and outbox per test, so that each test reads only its own messages; one
 * partition, {@code ordering=group}. The outbox {@code partial} sends through {@link
 * UnreliableEndpoint}, which records every call, dies a message after 2 attempts and retries
 * after 100 ms.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqsHostileInputThroughOutboxTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String[] OUTBOXES =
      {"attributes", "base64count", "base64size", "size", "types", "partial", "keys"};

  private final Map<String, String> queues = new LinkedHashMap<>();
  private UnreliableEndpoint partialEndpoint;
  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private OutboxMetricsProbe metrics;

  /**
   * A message with any text, group key and headers, encoded by the core's JSON-B codec as
   * {@code {"extra":{...},"key":"...","text":"..."}}.
   */
  public record HostileEvent(String key, String text, Map<String, String> extra)
      implements OutboxMessage {

    @Override
    public String groupKey() {
      return key;
    }

    @Override
    public Map<String, String> headers() {
      return extra;
    }
  }

  /** A message type with a control character, which SQS refuses in the outbox-type attribute. */
  @Outboxed(value = "types", type = "Order\u0001Paid")
  public record ControlCharacterType(String key) implements OutboxMessage {
    @Override
    public String groupKey() {
      return key;
    }
  }

  /** A message type with U+FFFE, which SQS refuses in the outbox-type attribute. */
  @Outboxed(value = "types", type = "Order\uFFFEPaid")
  public record NoncharacterType(String key) implements OutboxMessage {
    @Override
    public String groupKey() {
      return key;
    }
  }

  /** A message type of characters SQS accepts: spaces, punctuation, emoji, a tab. */
  @Outboxed(value = "types", type = "Order paid! \u00e9\t\uD83C\uDF89")
  public record UnusualType(String key) implements OutboxMessage {
    @Override
    public String groupKey() {
      return key;
    }
  }

  @BeforeAll
  void start() throws Exception {
    Map<String, String> config = new LinkedHashMap<>();
    for (String name : OUTBOXES) {
      String queue = SQS.createFifoQueue("hostile-" + name + ".fifo");
      queues.put(name, queue);
      config.put("outbox." + name + ".relay", "sqs");
      config.put("outbox." + name + ".partitions", "1");
      config.put("outbox." + name + ".poll-interval", "100ms");
      config.put("outbox." + name + ".max-poll-interval", "500ms");
      SQS.relaySettings(queue)
          .forEach((key, value) -> config.put("outbox." + name + ".sqs." + key, value));
    }
    partialEndpoint = new UnreliableEndpoint(SQS.endpoint());
    config.put("outbox.partial.sqs.endpoint", partialEndpoint.endpoint().toString());
    config.put("outbox.partial.max-attempts", "2");
    config.put("outbox.partial.backoff.min", "100ms");
    config.put("outbox.partial.backoff.max", "100ms");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .beans(OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
    if (partialEndpoint != null) {
      partialEndpoint.close();
    }
  }

  /**
   * SQS allows 10 message attributes; the relay adds 6 of its own, a seventh for the group key.
   * Four headers more used to pass {@code publish}, and the record then failed at every send.
   */
  @Test
  void a_message_needing_more_than_ten_attributes_is_refused_at_publish_and_its_group_flows()
      throws Exception {
    String name = "attributes";
    InvalidOutboxMessageException refused = publishRefused(name,
        new HostileEvent("order-1", "eleven", headers(4)));
    assertThat(refused.field()).isEqualTo("message");
    assertThat(refused).hasMessageContaining("11 message attributes")
        .hasMessageContaining("SQS allows 10").hasMessageContaining("Nothing was written");

    long delivered = publish(name, new HostileEvent("order-1", "ten", headers(3)));

    Received received = receiveOnly(name, delivered);
    assertThat(received.attributes()).hasSize(10).containsKeys("h0", "h1", "h2");
  }

  /**
   * A JSON payload holding U+FFFF (JSON-B writes it unescaped) cannot be an SQS body as text, so
   * it goes as Base64 with the attribute outbox-body-encoding: an eleventh attribute for a message
   * with a group key and three headers, which used to pass {@code publish}.
   */
  @Test
  void a_json_payload_with_a_character_sqs_refuses_counts_its_base64_attribute_at_publish()
      throws Exception {
    String name = "base64count";
    InvalidOutboxMessageException refused = publishRefused(name,
        new HostileEvent("order-1", "not\uFFFFtext", headers(3)));
    assertThat(refused.field()).isEqualTo("message");
    assertThat(refused).hasMessageContaining("11 message attributes")
        .hasMessageContaining(SqsMessageAttributes.BODY_ENCODING);

    long delivered = publish(name, new HostileEvent("order-1", "not\uFFFFtext", headers(2)));

    Received received = receiveOnly(name, delivered);
    assertThat(received.attributes()).hasSize(10)
        .containsEntry(SqsMessageAttributes.BODY_ENCODING, SqsMessageAttributes.BASE64);
    assertThat(new String(Base64.getDecoder().decode(received.body()), StandardCharsets.UTF_8))
        .contains("not\uFFFFtext");
  }

  /**
   * 200,000 bytes of JSON fit SQS's 256 KiB as text, but not as Base64 (4/3 larger), which a
   * single U+FFFF forces; the core's payload limit (256 KiB less the attributes) let it pass.
   */
  @Test
  void a_payload_whose_base64_body_exceeds_the_message_size_is_refused_at_publish()
      throws Exception {
    String name = "base64size";
    String large = "x".repeat(200_000);
    InvalidOutboxMessageException refused = publishRefused(name,
        new HostileEvent("order-1", large + "\uFFFF", Map.of()));
    assertThat(refused.field()).isEqualTo("message");
    assertThat(refused).hasMessageContaining("Base64").hasMessageContaining("262144");

    long delivered = publish(name, new HostileEvent("order-1", large, Map.of()));

    Received received = receiveOnly(name, delivered);
    assertThat(received.body()).contains(large);
  }

  /**
   * The core's payload limit leaves room for the relay's attributes at their smallest (a
   * one-character type and content type, no group key); a payload at that limit with a real type,
   * content type and group key is larger than SQS's 256 KiB and used to pass {@code publish}.
   */
  @Test
  void a_payload_within_the_payload_limit_but_too_large_with_its_attributes_is_refused_at_publish()
      throws Exception {
    String name = "size";
    long ownAtTheirSmallest = SqsMessageConstraints.smallestOwnAttributes(name);
    // {"extra":{},"key":"order-1","text":"..."} is 38 bytes besides the text: the payload is
    // exactly the core's limit.
    int text = (int) (262_144 - ownAtTheirSmallest - 38);
    InvalidOutboxMessageException refused = publishRefused(name,
        new HostileEvent("order-1", "x".repeat(text), Map.of()));
    assertThat(refused.field()).isEqualTo("message");
    assertThat(refused).hasMessageContaining("262144");

    long delivered = publish(name, new HostileEvent("order-1", "x".repeat(text - 200), Map.of()));

    receiveOnly(name, delivered);
  }

  /**
   * {@code @Outboxed(type)} is any text without NUL; SQS refuses control characters and U+FFFE in
   * the outbox-type attribute. Such a type used to pass {@code publish}, and every send of the
   * message was refused by SQS.
   */
  @Test
  void a_message_type_with_a_character_sqs_refuses_is_refused_at_publish() throws Exception {
    String name = "types";
    Throwable control = publishRefused(name, new ControlCharacterType("order-1"));
    assertThat(control).hasMessageContaining("message type").hasMessageContaining("U+0001");
    Throwable noncharacter = publishRefused(name, new NoncharacterType("order-1"));
    assertThat(noncharacter).hasMessageContaining("message type").hasMessageContaining("U+FFFE");

    long delivered = container.inTransaction(() -> outbox.publish(name, new UnusualType("order-1")));

    QueueReader reader = new QueueReader(SQS.client(), queues.get(name));
    await().atMost(WAIT).until(() -> reader.poll() >= 1);
    await().atMost(WAIT).until(() -> admin.counts(name).pending() == 0);
    assertThat(reader.received()).extracting(Received::outboxId).containsExactly(delivered);
    assertThat(reader.received().get(0).attributes())
        .containsEntry(StandardHeaders.TYPE, "Order paid! \u00e9\t\uD83C\uDF89");
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, name)).isZero();
  }

  /**
   * A SendMessageBatch call whose answer lists one entry as failed: the others are confirmed,
   * deleted and never sent again; only the failed one is charged (and dies after max-attempts=2),
   * and the next message of its group waits for it, then goes. The refused row stands for one
   * written before publish checked header values (or by a tool): its header value holds U+0001,
   * which SQS refuses; the row is changed inside the publishing transaction, so no worker saw it
   * intact.
   */
  @Test
  void an_entry_sqs_refuses_in_a_batch_is_charged_alone_and_the_confirmed_ones_go_out_once()
      throws Exception {
    String name = "partial";
    Map<String, Long> ids = container.inTransaction(() -> {
      Map<String, Long> published = new LinkedHashMap<>();
      published.put("a1", outbox.publish(name, new HostileEvent("a", "a1", Map.of("x-h", "v"))));
      published.put("a2", outbox.publish(name, new HostileEvent("a", "a2", Map.of())));
      published.put("b1", outbox.publish(name, new HostileEvent("b", "b1", Map.of())));
      published.put("b2", outbox.publish(name, new HostileEvent("b", "b2", Map.of())));
      published.put("c1", outbox.publish(name, new HostileEvent("c", "c1", Map.of())));
      published.put("u1", outbox.publish(name, new HostileEvent(null, "u1", Map.of())));
      container.entityManager().flush();
      try (java.sql.Connection connection = container.dataSource().getConnection();
          java.sql.PreparedStatement update = connection.prepareStatement(
              "UPDATE outbox_message SET headers = ? WHERE id = ?")) {
        update.setString(1, "{\"x-h\":\"bell\\u0001\"}");
        update.setLong(2, published.get("a1"));
        assertThat(update.executeUpdate()).isEqualTo(1);
      }
      return published;
    });

    QueueReader reader = new QueueReader(SQS.client(), queues.get(name));
    await().atMost(WAIT).until(() -> reader.poll() >= 5);
    await().atMost(WAIT).until(() -> admin.counts(name).pending() == 0);
    reader.poll();

    assertThat(reader.received()).extracting(Received::outboxId).as("what reached the queue")
        .containsExactlyInAnyOrder(ids.get("a2"), ids.get("b1"), ids.get("b2"), ids.get("c1"),
            ids.get("u1"));
    assertThat(admin.counts(name).dead()).isEqualTo(1);
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, name)).isEqualTo(2);
    // The first call held the refused entry with others: SQS answered with a partial failure.
    assertThat(partialEndpoint.calls("SendMessageBatch").get(0).body().getJsonArray("Entries"))
        .extracting(entry -> entry.asJsonObject().getString("MessageDeduplicationId"))
        .contains(Long.toString(ids.get("a1")), Long.toString(ids.get("b1")));
    // Every send of every entry, across all calls: the refused one twice, the others once.
    Map<String, Long> sends = partialEndpoint.calls("SendMessageBatch").stream()
        .flatMap(call -> call.body().getJsonArray("Entries").stream())
        .map(entry -> entry.asJsonObject().getString("MessageDeduplicationId"))
        .collect(java.util.stream.Collectors.groupingBy(id -> id,
            java.util.stream.Collectors.counting()));
    Map<String, Long> expected = new LinkedHashMap<>();
    ids.forEach((label, id) -> expected.put(Long.toString(id), label.equals("a1") ? 2L : 1L));
    assertThat(sends).isEqualTo(expected);
  }

  /**
   * Group keys SQS cannot take as a MessageGroupId (255 emoji, spaces, a tab, non-ASCII) are
   * hashed, keys it can (all of ASCII's punctuation, 128 characters, one that looks like an
   * ungrouped id) are used as they are; each arrives with its key unchanged, in order per key.
   */
  @Test
  void unusual_group_keys_arrive_unchanged_and_in_order_with_a_group_id_sqs_takes()
      throws Exception {
    String name = "keys";
    StringBuilder punctuation = new StringBuilder();
    for (char c = '!'; c <= '~'; c++) {
      if (!Character.isLetterOrDigit(c)) {
        punctuation.append(c);
      }
    }
    List<String> hashed = List.of("\uD83C\uDF89".repeat(255), " spaced key ", "tab\tkey",
        "x".repeat(129), "caf\u00e9");
    List<String> asIs = List.of(punctuation.toString(), "y".repeat(128), "outbox-ungrouped-3");
    List<String> keys = new java.util.ArrayList<>(hashed);
    keys.addAll(asIs);
    Map<String, List<Long>> published = new LinkedHashMap<>();
    for (int round = 0; round < 2; round++) {
      container.inTransaction(() -> {
        for (String key : keys) {
          published.computeIfAbsent(key, k -> new java.util.ArrayList<>())
              .add(outbox.publish(name, new HostileEvent(key, "m", Map.of())));
        }
      });
    }

    QueueReader reader = new QueueReader(SQS.client(), queues.get(name));
    await().atMost(WAIT).until(() -> reader.poll() >= 2 * keys.size());
    await().atMost(WAIT).until(() -> admin.counts(name).pending() == 0);

    assertThat(reader.idsByGroupKey()).isEqualTo(published);
    assertThat(reader.received()).allSatisfy(message -> assertThat(message.groupId())
        .isEqualTo(asIs.contains(message.groupKey()) ? message.groupKey()
            : SqsRules.groupIdOf(message.groupKey()))
        .matches("[\\x21-\\x7E]{1,128}"));
    assertThat(reader.received()).filteredOn(message -> hashed.contains(message.groupKey()))
        .allSatisfy(message -> assertThat(message.groupId()).startsWith("sha256-"));
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, name)).isZero();
  }

  private static Map<String, String> headers(int count) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      headers.put("h" + i, "v" + i);
    }
    return headers;
  }

  /** Publishes in a transaction that commits after the refusal: the refusal writes nothing. */
  private InvalidOutboxMessageException publishRefused(String name, OutboxMessage event)
      throws Exception {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    container.inTransaction(() -> thrown.set(catchThrowable(() -> outbox.publish(name, event))));
    assertThat(thrown.get()).as("publish of a message SQS could never take")
        .isInstanceOf(InvalidOutboxMessageException.class);
    assertThat(admin.counts(name).pending()).as("rows written by the refused publish").isZero();
    return (InvalidOutboxMessageException) thrown.get();
  }

  private long publish(String name, HostileEvent event) throws Exception {
    return container.inTransaction(() -> outbox.publish(name, event));
  }

  /** Waits until the queue got that message, and checks it is the only one and none failed. */
  private Received receiveOnly(String name, long id) {
    QueueReader reader = new QueueReader(SQS.client(), queues.get(name));
    await().atMost(WAIT).until(() -> reader.poll() >= 1);
    await().atMost(WAIT).until(() -> admin.counts(name).pending() == 0);
    assertThat(reader.received()).extracting(Received::outboxId).containsExactly(id);
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, name)).isZero();
    Received received = reader.received().get(0);
    assertThat(received.attributes()).containsEntry(StandardHeaders.TYPE, "HostileEvent");
    return received;
  }
}
