package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.StandardHeaders;
import dev.outboxer.sqs.QueueReader.Received;
import dev.outboxer.testing.OutboxRecords;
import dev.outboxer.testing.TestRelayBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The relay against ElasticMQ in the test JVM, driven as partition workers would drive it. */
class SqsRelayTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(10);

  private final OutboxRecords records = new OutboxRecords("orders");

  static Relay relay(String queueUrl, Ordering ordering, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(SQS.relaySettings(queueUrl));
    settings.putAll(extra);
    return new SqsRelayProvider()
        .create(new RelayContext("orders", ordering, 4, RELAY_TIMEOUT, settings));
  }

  @Test
  void each_record_becomes_an_sqs_message_with_group_deduplication_id_body_and_attributes()
      throws Exception {
    String queue = SQS.createFifoQueue("mapping.fifo");
    OutboxRecord keyed = records.next(2, "order:42", Map.of("x-tenant", "acme", "trace.id", "t1"));
    OutboxRecord unkeyed = records.next(1, null);
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    OutboxRecord binary = records.next(0, "order:43", "application/octet-stream", bytes);
    OutboxRecord controlText =
        records.next(0, "order:44", "text/plain", "bell\u0007".getBytes(StandardCharsets.UTF_8));
    OutboxRecord oddKey = records.next(0, "order 45 ünïcode");
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP,
        List.of(keyed, unkeyed, binary, controlText, oddKey), RELAY_TIMEOUT).fencingToken(7);

    try (Relay relay = relay(queue, Ordering.GROUP, Map.of())) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.confirmed()).containsExactlyElementsOf(batch.records());
    QueueReader reader = new QueueReader(SQS.client(), queue);
    assertThat(reader.poll()).isEqualTo(5);
    Map<Long, Received> byId = reader.received().stream()
        .collect(Collectors.toMap(Received::outboxId, Function.identity()));

    Received first = byId.get(keyed.id());
    assertThat(first.body()).isEqualTo(keyed.payloadText());
    assertThat(first.groupId()).isEqualTo("order:42");
    assertThat(first.deduplicationId()).isEqualTo(Long.toString(keyed.id()));
    assertThat(first.attributes()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "x-tenant", "acme",
        "trace.id", "t1",
        StandardHeaders.ID, Long.toString(keyed.id()),
        StandardHeaders.OUTBOX, "orders",
        StandardHeaders.TYPE, "OrderPaid",
        StandardHeaders.CONTENT_TYPE, "application/json",
        StandardHeaders.PARTITION, "2",
        StandardHeaders.FENCING_TOKEN, "7",
        StandardHeaders.GROUP_KEY, "order:42"));
    assertThat(first.dataTypes()).containsEntry(StandardHeaders.ID, "Number")
        .containsEntry(StandardHeaders.PARTITION, "Number")
        .containsEntry(StandardHeaders.FENCING_TOKEN, "Number")
        .containsEntry(StandardHeaders.OUTBOX, "String")
        .containsEntry("x-tenant", "String");

    Received second = byId.get(unkeyed.id());
    assertThat(second.attributes()).doesNotContainKey(StandardHeaders.GROUP_KEY)
        .doesNotContainKey(SqsMessageAttributes.BODY_ENCODING);
    assertThat(second.groupId()).startsWith("outbox-ungrouped-");

    Received third = byId.get(binary.id());
    assertThat(third.attributes())
        .containsEntry(SqsMessageAttributes.BODY_ENCODING, SqsMessageAttributes.BASE64)
        .containsEntry(StandardHeaders.CONTENT_TYPE, "application/octet-stream");
    assertThat(Base64.getDecoder().decode(third.body())).isEqualTo(bytes);

    Received fourth = byId.get(controlText.id());
    assertThat(fourth.attributes())
        .containsEntry(SqsMessageAttributes.BODY_ENCODING, SqsMessageAttributes.BASE64);
    assertThat(new String(Base64.getDecoder().decode(fourth.body()), StandardCharsets.UTF_8))
        .isEqualTo("bell\u0007");

    Received fifth = byId.get(oddKey.id());
    assertThat(fifth.groupId()).as("a key SQS refuses as MessageGroupId is hashed")
        .matches("sha256-[0-9a-f]{64}");
    assertThat(fifth.groupKey()).isEqualTo("order 45 ünïcode");
  }

  @Test
  void every_message_arrives_once_in_relay_order_per_group_from_concurrent_workers()
      throws Exception {
    String queue = SQS.createFifoQueue("concurrent.fifo");
    // 4 outbox partitions with their own groups (as the core hashes them) and unordered
    // messages, relayed by 4 worker threads through one shared relay.
    Map<Integer, List<OutboxRecord>> byPartition = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      int partition = i % 4;
      String key = i % 10 == 9 ? null : "order:" + partition + ":" + (i / 4) % 6;
      byPartition.computeIfAbsent(partition, p -> new ArrayList<>())
          .add(records.next(partition, key));
    }
    List<TestRelayBatch> batches = new ArrayList<>();
    try (Relay relay = relay(queue, Ordering.GROUP, Map.of())) {
      ExecutorService workers = Executors.newFixedThreadPool(4);
      List<Future<List<TestRelayBatch>>> done = new ArrayList<>();
      for (List<OutboxRecord> partitionRecords : byPartition.values()) {
        done.add(workers.submit(() -> relayInBatches(relay, partitionRecords, 25)));
      }
      for (Future<List<TestRelayBatch>> worker : done) {
        batches.addAll(worker.get());
      }
      workers.shutdown();
    }

    assertThat(batches).allSatisfy(batch -> {
      assertThat(batch.unconfirmed()).as("unconfirmed in %s", batch).isEmpty();
      assertThat(batch.violations()).isEmpty();
    });
    QueueReader reader = new QueueReader(SQS.client(), queue);
    assertThat(reader.poll()).isEqualTo(200);
    List<OutboxRecord> all = byPartition.values().stream().flatMap(List::stream).toList();
    assertThat(reader.ids()).hasSize(200)
        .containsExactlyInAnyOrderElementsOf(all.stream().map(OutboxRecord::id).toList());
    Map<String, List<Long>> sentByKey = all.stream().filter(r -> r.groupKey() != null)
        .collect(Collectors.groupingBy(OutboxRecord::groupKey,
            Collectors.mapping(OutboxRecord::id, Collectors.toList())));
    assertThat(reader.idsByGroupKey()).isEqualTo(sentByKey);
    assertThat(reader.received().stream().filter(m -> m.groupKey() == null)
        .map(Received::groupId).distinct().count())
        .as("ungrouped messages spread over several group ids").isGreaterThan(1);
  }

  @ParameterizedTest
  @EnumSource(Ordering.class)
  void an_entry_sqs_refuses_fails_alone_and_holds_back_only_the_rest_of_its_ordering_unit(
      Ordering ordering) throws Exception {
    String queue = SQS.createFifoQueue("refused-" + ordering.configValue() + ".fifo");
    OutboxRecord a1 = records.next(0, "a");
    // U+0001 is not a character SQS accepts in an attribute value: ElasticMQ refuses the entry.
    OutboxRecord a2 = records.next(0, "a", Map.of("x-bad", "bell\u0001"));
    OutboxRecord a3 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");
    OutboxRecord n1 = records.next(0, null);
    OutboxRecord b2 = records.next(0, "b");
    TestRelayBatch batch =
        new TestRelayBatch(ordering, List.of(a1, a2, a3, b1, n1, b2), RELAY_TIMEOUT);

    try (Relay relay = relay(queue, ordering, Map.of())) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.failure(a2)).isInstanceOf(SqsRelayException.class)
        .hasMessageContaining("Outbox 'orders' message " + a2.id() + " (type OrderPaid) was"
            + " refused by SQS queue " + queue + " (outbox.orders.sqs.queue-url)")
        .hasMessageContaining("x-bad");
    assertThat(batch.violations()).isEmpty();
    List<OutboxRecord> expected = switch (ordering) {
      case GROUP -> List.of(a1, b1, n1, b2); // a3 waits behind a2; b and the null key go on
      case TOTAL -> List.of(a1);             // everything behind a2 waits
      case NONE -> List.of(a1, a3, b1, n1, b2);
    };
    assertThat(batch.confirmed()).containsExactlyElementsOf(expected);
    assertThat(batch.failed()).containsExactly(a2);
    QueueReader reader = new QueueReader(SQS.client(), queue);
    reader.poll();
    assertThat(reader.received()).extracting(Received::outboxId).as("what reached the queue")
        .containsExactlyInAnyOrderElementsOf(expected.stream().map(OutboxRecord::id).toList());
    if (ordering == Ordering.TOTAL) {
      assertThat(reader.received()).extracting(Received::groupId).containsOnly("orders");
    }
  }

  @Test
  void a_record_sqs_could_never_take_fails_without_a_call_and_holds_back_its_group()
      throws Exception {
    String queue = SQS.createFifoQueue("never.fifo");
    Map<String, String> fiveHeaders = new HashMap<>();
    for (int i = 1; i <= 5; i++) {
      fiveHeaders.put("h" + i, "v" + i);
    }
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord a2 = records.next(0, "a", fiveHeaders); // 7 attributes of the relay's + 5
    OutboxRecord a3 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b", "application/json",
        ("\"" + "x".repeat(1_100) + "\"").getBytes(StandardCharsets.UTF_8));
    OutboxRecord b2 = records.next(0, "b");
    OutboxRecord c1 = records.next(0, "c");
    TestRelayBatch batch =
        new TestRelayBatch(Ordering.GROUP, List.of(a1, a2, a3, b1, b2, c1), RELAY_TIMEOUT);

    try (Relay relay = relay(queue, Ordering.GROUP, Map.of("max-message-size", "1024"))) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.confirmed()).containsExactly(a1, c1);
    assertThat(batch.failed()).containsExactly(a2, b1);
    assertThat(batch.unconfirmed()).containsExactly(a2, a3, b1, b2);
    assertThat(batch.failure(a2)).hasMessageContaining("can never be sent")
        .hasMessageContaining("it would need 12 message attributes (7 of the relay's own and 5"
            + " headers), and SQS allows 10: drop 2 header(s)");
    assertThat(batch.failure(b1)).hasMessageContaining("more than the queue's maximum message"
        + " size of 1024 bytes (outbox.orders.sqs.max-message-size)");
    QueueReader reader = new QueueReader(SQS.client(), queue);
    reader.poll();
    assertThat(reader.received()).extracting(Received::outboxId)
        .containsExactlyInAnyOrder(a1.id(), c1.id());
  }

  /**
   * A record whose type SQS refuses in outbox-type (published before publish checked types) fails
   * without a call, naming the type's character, not with SQS's bare InvalidMessageContents.
   */
  @Test
  void a_record_whose_type_sqs_refuses_fails_without_a_call_naming_the_character()
      throws Exception {
    String queue = SQS.createFifoQueue("badtype.fifo");
    OutboxRecord bad = new OutboxRecord(1, "orders", 0, "a", "Order\u0001Paid",
        "application/json", "{}".getBytes(StandardCharsets.UTF_8), Map.of(), 0,
        java.time.Instant.now());
    OutboxRecord other = new OutboxRecord(2, "orders", 0, "b", "OrderPaid",
        "application/json", "{}".getBytes(StandardCharsets.UTF_8), Map.of(), 0,
        java.time.Instant.now());
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP, List.of(bad, other), RELAY_TIMEOUT);

    try (Relay relay = relay(queue, Ordering.GROUP, Map.of())) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.confirmed()).containsExactly(other);
    assertThat(batch.failure(bad)).hasMessageContaining("can never be sent")
        .hasMessageContaining("its type holds the character U+0001, which SQS refuses in the"
            + " outbox-type message attribute");
  }

  @Test
  void calls_hold_at_most_batch_size_entries_and_one_record_per_group() throws Exception {
    String queue = SQS.createFifoQueue("calls.fifo");
    List<OutboxRecord> batchRecords = new ArrayList<>();
    for (String key : new String[] {"a", "b", "a", "c", "b", "a", null, "d", "c", null, "e", "b"}) {
      batchRecords.add(records.next(0, key));
    }
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP, batchRecords, RELAY_TIMEOUT);

    try (UnreliableEndpoint endpoint = new UnreliableEndpoint(SQS.endpoint());
        Relay relay = relay(queue, Ordering.GROUP,
            Map.of("endpoint", endpoint.endpoint().toString(), "batch-size", "3"))) {
      relay.relay(batch);
      batch.end();
      List<List<String>> keysPerCall = endpoint.calls("SendMessageBatch").stream()
          .map(call -> call.body().getJsonArray("Entries").stream()
              .map(entry -> entry.asJsonObject().getJsonObject("MessageAttributes"))
              .map(attributes -> attributes.containsKey(StandardHeaders.GROUP_KEY)
                  ? attributes.getJsonObject(StandardHeaders.GROUP_KEY).getString("StringValue")
                  : "-")
              .toList())
          .toList();
      // wave 1: a b c null d null e (3 calls), wave 2: a b c (1), wave 3: a b (1)
      assertThat(keysPerCall).containsExactly(
          List.of("a", "b", "c"), List.of("-", "d", "-"), List.of("e"),
          List.of("a", "b", "c"), List.of("a", "b"));
    }
    assertThat(batch.confirmed()).containsExactlyElementsOf(batchRecords);
    QueueReader reader = new QueueReader(SQS.client(), queue);
    reader.poll();
    assertThat(reader.idsByGroupKey().get("a")).containsExactly(
        batchRecords.get(0).id(), batchRecords.get(2).id(), batchRecords.get(5).id());
  }

  @Test
  void calls_stay_within_the_maximum_message_size() throws Exception {
    String queue = SQS.createFifoQueue("sizes.fifo");
    List<OutboxRecord> batchRecords = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      batchRecords.add(records.next(0, "k" + i, "application/json",
          ("\"" + "x".repeat(500) + "\"").getBytes(StandardCharsets.UTF_8)));
    }
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP, batchRecords, RELAY_TIMEOUT);

    try (UnreliableEndpoint endpoint = new UnreliableEndpoint(SQS.endpoint());
        Relay relay = relay(queue, Ordering.GROUP, Map.of(
            "endpoint", endpoint.endpoint().toString(), "max-message-size", "1500"))) {
      relay.relay(batch);
      batch.end();
      // each message takes about 640 bytes with its attributes: two fit in 1500, three do not
      assertThat(endpoint.calls("SendMessageBatch"))
          .extracting(call -> call.body().getJsonArray("Entries").size())
          .containsExactly(2, 2);
    }
    assertThat(batch.confirmed()).containsExactlyElementsOf(batchRecords);
  }

  @Test
  void a_lapsed_claim_stops_the_relay_before_its_next_call() throws Exception {
    String queue = SQS.createFifoQueue("lapsed.fifo");
    List<OutboxRecord> batchRecords = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      batchRecords.add(records.next(0, "g" + i));
    }
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP, batchRecords, RELAY_TIMEOUT);

    try (UnreliableEndpoint endpoint = new UnreliableEndpoint(SQS.endpoint());
        Relay relay = relay(queue, Ordering.GROUP,
            Map.of("endpoint", endpoint.endpoint().toString(), "batch-size", "2"))) {
      // The worker is paused past its lease while the first call is on its way.
      endpoint.afterForward(call -> batch.loseClaim());
      relay.relay(batch);
      batch.end();
      assertThat(endpoint.calls("SendMessageBatch")).hasSize(1);
    }

    assertThat(batch.outcomes()).as("nothing reported once the claim lapsed").isEmpty();
    assertThat(batch.violations()).isEmpty();
    QueueReader reader = new QueueReader(SQS.client(), queue);
    assertThat(reader.poll()).as("only the call made before the claim lapsed").isEqualTo(2);
  }

  @Test
  void a_batch_past_its_deadline_sends_nothing() throws Exception {
    String queue = SQS.createFifoQueue("late.fifo");
    OutboxRecord record = records.next(0, "a");
    TestRelayBatch batch = new TestRelayBatch("orders", Ordering.GROUP,
        java.time.Instant.now().minusMillis(1), List.of(record));

    try (Relay relay = relay(queue, Ordering.GROUP, Map.of())) {
      relay.relay(batch);
    }

    assertThat(batch.outcomes()).isEmpty();
    assertThat(new QueueReader(SQS.client(), queue).poll()).isZero();
  }

  @Test
  void a_slow_endpoint_fails_the_call_at_the_batch_deadline_not_later() throws Exception {
    String queue = SQS.createFifoQueue("slow.fifo");
    OutboxRecord record = records.next(0, "a");
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP, List.of(record),
        Duration.ofMillis(1_500));

    try (UnreliableEndpoint endpoint = new UnreliableEndpoint(SQS.endpoint());
        Relay relay = relay(queue, Ordering.GROUP,
            Map.of("endpoint", endpoint.endpoint().toString()))) {
      endpoint.delay(Duration.ofSeconds(10));
      long start = System.nanoTime();
      assertThatThrownBy(() -> relay.relay(batch))
          .isInstanceOf(SqsRelayException.class)
          .hasMessageContaining("could not send 1 message(s) to SQS queue " + queue)
          .hasMessageContaining("ApiCallTimeoutException");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("bounded by the batch deadline (1.5 s), not the 10 s answer nor the 7.5 s call"
              + " timeout")
          .isLessThan(Duration.ofMillis(6_000));
    }
    assertThat(batch.outcomes()).isEmpty();
  }

  @Test
  void a_closed_relay_refuses_further_batches() {
    Relay relay = relay(SQS.createFifoQueue("closed.fifo"), Ordering.GROUP, Map.of());
    relay.close();
    relay.close();

    assertThatThrownBy(() -> relay.relay(TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"))))
        .isInstanceOf(SqsRelayException.class)
        .hasMessageContaining("The sqs relay of outbox 'orders' is closed");
  }

  static List<TestRelayBatch> relayInBatches(Relay relay, List<OutboxRecord> all, int size)
      throws Exception {
    List<TestRelayBatch> batches = new ArrayList<>();
    for (int from = 0; from < all.size(); from += size) {
      TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP,
          all.subList(from, Math.min(all.size(), from + size)), RELAY_TIMEOUT);
      relay.relay(batch);
      batch.end();
      batches.add(batch);
    }
    return batches;
  }
}
