package dev.outboxer.kafka;

import dev.outboxer.testing.TestRelayBatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxException;
import dev.outboxer.testing.TestRelayBatch.Confirmed;
import dev.outboxer.testing.TestRelayBatch.Failed;
import dev.outboxer.kafka.TopicReader.Received;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The relay against a real single-node KRaft broker, driven as a partition worker would. */
class KafkaRelayTest {

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(10);

  private final OutboxRecords records = new OutboxRecords("orders");

  static Relay relay(
      EmbeddedKafkaBroker kafka, String topic, Duration relayTimeout, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(extra);
    properties.put("topic", topic);
    properties.put("bootstrap.servers", kafka.bootstrapServers());
    return new KafkaRelayProvider()
        .create(new RelayContext("orders", Ordering.GROUP, 4, relayTimeout, properties));
  }

  @ParameterizedTest(name = "fencing {0}")
  @ValueSource(strings = {"transactional", "none"})
  void everyMessageArrivesOncePerKeyInRelayOrderFromConcurrentWorkers(String fencing)
      throws Exception {
    String topic = "orders-concurrent-" + fencing;
    KAFKA.createTopic(topic, 4, Map.of());
    // 4 outbox partitions, each with its own groups (as the core hashes them) and some
    // unordered messages, relayed by 4 worker threads through one shared relay.
    Map<Integer, List<OutboxRecord>> byPartition = new HashMap<>();
    for (int i = 0; i < 2_000; i++) {
      int partition = i % 4;
      String key = i % 10 == 9 ? null : "order:" + partition + ":" + (i / 4) % 25;
      byPartition.computeIfAbsent(partition, p -> new ArrayList<>())
          .add(records.next(partition, key));
    }
    List<TestRelayBatch> batches = new ArrayList<>();
    try (Relay relay = relay(KAFKA, topic, RELAY_TIMEOUT, Map.of("fencing", fencing))) {
      ExecutorService workers = Executors.newFixedThreadPool(4);
      List<Future<List<TestRelayBatch>>> done = new ArrayList<>();
      for (List<OutboxRecord> partitionRecords : byPartition.values()) {
        done.add(workers.submit(() -> relayInBatches(relay, partitionRecords, 50)));
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
    List<Received> received = TopicReader.readAll(KAFKA.bootstrapServers(), topic, 2_000,
        Duration.ofSeconds(30));
    assertThat(received).hasSize(2_000);
    Map<String, List<Long>> sentByKey = byPartition.values().stream().flatMap(List::stream)
        .filter(r -> r.groupKey() != null)
        .collect(Collectors.groupingBy(OutboxRecord::groupKey,
            Collectors.mapping(OutboxRecord::id, Collectors.toList())));
    Map<String, List<Received>> receivedByKey = received.stream()
        .filter(r -> r.key() != null)
        .collect(Collectors.groupingBy(Received::key));
    assertThat(receivedByKey.keySet()).isEqualTo(sentByKey.keySet());
    sentByKey.forEach((key, ids) -> {
      List<Received> ofKey = receivedByKey.get(key);
      assertThat(ofKey).extracting(Received::outboxId).as("ids of %s", key).isEqualTo(ids);
      assertThat(ofKey).extracting(Received::partition).as("partitions of %s", key).containsOnly(
          ofKey.get(0).partition());
      assertThat(ofKey).allSatisfy(r -> assertThat(r.headers())
          .containsEntry(OutboxKafkaHeaders.GROUP_KEY, key)
          .containsEntry(OutboxKafkaHeaders.OUTBOX, "orders")
          .containsEntry(OutboxKafkaHeaders.TYPE, "OrderPaid")
          .containsEntry(OutboxKafkaHeaders.CONTENT_TYPE, "application/json")
          .containsEntry(OutboxKafkaHeaders.PARTITION, key.split(":")[1])
          .containsEntry(OutboxKafkaHeaders.FENCING_TOKEN, "1"));
    });
    List<Received> unkeyed = received.stream().filter(r -> r.key() == null).toList();
    assertThat(unkeyed).hasSize(200)
        .allSatisfy(r -> assertThat(r.headers()).doesNotContainKey(OutboxKafkaHeaders.GROUP_KEY));
    assertThat(received).extracting(Received::outboxId).doesNotHaveDuplicates();
    Received first = receivedByKey.get("order:0:0").get(0);
    assertThat(new String(first.value(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"id\":" + first.outboxId() + ",\"key\":\"order:0:0\"}");
  }

  @ParameterizedTest(name = "{0}, fencing {1}")
  @CsvSource({
    "GROUP, transactional", "TOTAL, transactional", "NONE, transactional",
    "GROUP, none", "TOTAL, none", "NONE, none",
  })
  void aRecordTheBrokerRejectsHoldsBackOnlyTheRestOfItsOrderingUnit(Ordering ordering,
      String fencing) throws Exception {
    String topic = "orders-small-" + ordering.configValue() + "-" + fencing;
    KAFKA.createTopic(topic, 2, Map.of("max.message.bytes", "1024"));
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord a2 = records.next(0, "a", new byte[4096], Map.of());
    OutboxRecord a3 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");
    OutboxRecord n1 = records.next(0, null);
    OutboxRecord b2 = records.next(0, "b");
    TestRelayBatch batch =
        new TestRelayBatch(ordering, List.of(a1, a2, a3, b1, n1, b2), RELAY_TIMEOUT);

    try (Relay relay = relay(KAFKA, topic, RELAY_TIMEOUT, Map.of("fencing", fencing))) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.outcome(a2)).isInstanceOfSatisfying(Failed.class,
        failed -> assertThat(failed.cause()).isInstanceOf(RecordTooLargeException.class));
    assertThat(batch.violations()).isEmpty();
    List<OutboxRecord> expected = switch (ordering) {
      case GROUP -> List.of(a1, b1, n1, b2); // a3 waits behind a2; b and the null key go on
      case TOTAL -> List.of(a1);             // everything behind a2 waits
      case NONE -> List.of(a1, a3, b1, n1, b2);
    };
    assertThat(batch.confirmed()).containsExactlyElementsOf(expected);
    assertThat(batch.failed()).containsExactly(a2);
    List<Received> received =
        TopicReader.readAll(KAFKA.bootstrapServers(), topic, expected.size(), 
            Duration.ofSeconds(5));
    assertThat(received).extracting(Received::outboxId).as("what reached the topic")
        .containsExactlyInAnyOrderElementsOf(expected.stream().map(OutboxRecord::id).toList());
  }

  @Test
  void anUnknownTopicFailsTheBatchFastWithAMessageNamingTheTopic() throws Exception {
    Duration relayTimeout = Duration.ofSeconds(8); // max.block.ms becomes 2 s
    OutboxRecord first = records.next(0, "a");
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP,
        List.of(first, records.next(0, "b"), records.next(0, "a")), relayTimeout);

    long start = System.nanoTime();
    try (Relay relay = relay(KAFKA, "no-such-topic", relayTimeout, Map.of())) {
      assertThatThrownBy(() -> relay.relay(batch))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("Kafka topic 'no-such-topic' of outbox 'orders'")
          .hasMessageContaining("outbox.orders.kafka.topic")
          .hasMessageContaining("create the topic");
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).as("one max.block.ms, not Kafka's default 60 s").isLessThan(
        Duration.ofSeconds(5));
    assertThat(batch.outcome(first)).isInstanceOfSatisfying(Failed.class,
        failed -> assertThat(failed.cause()).hasMessageContaining("no-such-topic"));
    assertThat(batch.confirmed()).isEmpty();
  }

  @Test
  void aClosedRelayRefusesFurtherBatches() {
    Relay relay = relay(KAFKA, "orders-closed", RELAY_TIMEOUT, Map.of());
    relay.close();

    assertThatThrownBy(() -> relay.relay(new TestRelayBatch(Ordering.GROUP,
            List.of(records.next(0, "a")), RELAY_TIMEOUT)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outbox 'orders' is closed");
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

  static boolean confirmed(TestRelayBatch batch, OutboxRecord record) {
    return batch.outcome(record) instanceof Confirmed;
  }
}
