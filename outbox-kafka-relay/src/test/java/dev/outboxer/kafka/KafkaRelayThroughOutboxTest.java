package dev.outboxer.kafka;

import dev.outboxer.testing.OutboxMetricsProbe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.work.Workers;
import dev.outboxer.kafka.TopicReader.Received;
import dev.outboxer.testing.OutboxTables;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.spi.OutboxRecord;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka relay driven end to end by the real core: messages published through {@link Outbox}
 * in a JTA transaction on PostgreSQL, relayed by the partition workers ({@code
 * outbox.<name>.relay=kafka}) to the embedded KRaft broker, read back with a real {@code
 * KafkaConsumer}. One broker and one container for the class; each test has its own outbox and
 * topic: {@code orders} (4 outbox partitions, 3 topic partitions), {@code stream} (the broker
 * outage; retries wait for the test's clock steps), {@code missing} (a topic the broker does
 * not have, auto-creation off, max-attempts=1), {@code crowded} (the producer's default
 * max.request.size against many tiny headers) and {@code picky} (a topic whose max.message.bytes
 * refuses larger records, max-attempts=1).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaRelayThroughOutboxTest {

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Jsonb JSON = JsonbBuilder.create();
  private static final String ORDERS_TOPIC = "outboxer-orders";
  private static final String STREAM = "stream";
  private static final String STREAM_TOPIC = "outboxer-stream";
  private static final String MISSING_TOPIC = "outboxer-missing";
  private static final String CROWDED = "crowded";
  private static final String CROWDED_TOPIC = "outboxer-crowded";
  private static final String PICKY = "picky";
  private static final String PICKY_TOPIC = "outboxer-picky";
  /** The producer's default max.request.size, which the crowded outbox keeps. */
  private static final long MAX_REQUEST_SIZE = 1_048_576;
  private static final int STREAM_KEYS = 8;

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private Workers workers;
  private OutboxMetricsProbe metrics;

  @BeforeAll
  void start() throws Exception {
    KAFKA.createTopic(ORDERS_TOPIC, 3, Map.of());
    KAFKA.createTopic(STREAM_TOPIC, 3, Map.of());
    KAFKA.createTopic(CROWDED_TOPIC, 1, Map.of());
    // Records above 2 KiB are refused by the broker (RecordTooLargeException), not the producer.
    KAFKA.createTopic(PICKY_TOPIC, 1, Map.of("max.message.bytes", "2048"));
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "orders", 4, ORDERS_TOPIC);
    outboxConfig(config, STREAM, 4, STREAM_TOPIC);
    // Small batches: the outage catches many batches in flight. Retries wait far longer than the
    // test: only its clock steps bring them on. relay-timeout 4 s: delivery.timeout.ms 3 s.
    config.put("outbox.stream.batch-size", "10");
    config.put("outbox.stream.relay-timeout", "4s");
    config.put("outbox.stream.backoff.min", "30s");
    config.put("outbox.stream.backoff.max", "60s");
    config.put("outbox.stream.kafka.interceptor.classes", StopBrokerAfterAcks.class.getName());
    outboxConfig(config, "missing", 1, MISSING_TOPIC);
    config.put("outbox.missing.max-attempts", "1");
    config.put("outbox.missing.relay-timeout", "4s"); // max.block.ms 1 s
    outboxConfig(config, CROWDED, 1, CROWDED_TOPIC);
    outboxConfig(config, PICKY, 1, PICKY_TOPIC);
    config.put("outbox.picky.max-attempts", "1");
    config.put("outbox.picky.batch-size", "50");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .beans(OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    workers = container.select(Workers.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  private static void outboxConfig(
      Map<String, String> config, String name, int partitions, String topic) {
    config.put("outbox." + name + ".relay", "kafka");
    config.put("outbox." + name + ".partitions", String.valueOf(partitions));
    config.put("outbox." + name + ".batch-size", "20");
    config.put("outbox." + name + ".poll-interval", "100ms");
    config.put("outbox." + name + ".max-poll-interval", "500ms");
    config.put("outbox." + name + ".kafka.topic", topic);
    config.put("outbox." + name + ".kafka.bootstrap.servers", KAFKA.bootstrapServers());
  }

  @AfterAll
  void stop() {
    // The container first: its workers stop and close their producers while the broker is up.
    if (container != null) {
      container.close();
    }
  }

  @Test
  void everyMessageReachesTheMultiPartitionTopicOnceAndInPublishOrderPerKey() throws Exception {
    Map<Long, OrderEvent> published = new HashMap<>();
    Map<String, List<Long>> publishedByKey = new LinkedHashMap<>();
    Set<Long> unkeyed = new HashSet<>();
    for (int transaction = 0; transaction < 20; transaction++) {
      int base = transaction * 25;
      container.inTransaction(() -> {
        for (int i = 0; i < 25; i++) {
          // 12 interleaved orders hashed over the 4 outbox partitions, and unordered events.
          int sequence = base + i;
          OrderEvent event =
              new OrderEvent(sequence % 8 == 7 ? null : "order-" + sequence % 12, sequence);
          long id = outbox.publish("orders", event);
          published.put(id, event);
          if (event.order() == null) {
            unkeyed.add(id);
          } else {
            publishedByKey.computeIfAbsent(event.order(), key -> new ArrayList<>()).add(id);
          }
        }
      });
    }

    List<Received> received;
    try (TopicTail tail = new TopicTail(KAFKA.bootstrapServers(), ORDERS_TOPIC)) {
      try {
        await().atMost(WAIT).until(() -> tail.poll() >= published.size());
      } catch (ConditionTimeoutException e) {
        throw new AssertionError("not every message reached the topic: " + diagnosis("orders", tail), e);
      }
      // Every row deleted, each counted once: no batch is left to send anything more.
      await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
      await().atMost(WAIT)
          .until(() -> metrics.count(OutboxMetrics.RELAYED, "orders") == published.size());
      await().atMost(WAIT).until(() -> tail.poll() >= 0 && tail.atEnd());
      received = tail.received();
    }

    // Once: no failure, so no duplicate.
    assertThat(received).extracting(Received::outboxId)
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(published.keySet());
    Map<String, List<Received>> receivedByKey = received.stream()
        .filter(record -> record.key() != null)
        .collect(Collectors.groupingBy(Received::key, LinkedHashMap::new, Collectors.toList()));
    assertThat(receivedByKey.keySet()).isEqualTo(publishedByKey.keySet());
    publishedByKey.forEach((key, ids) -> {
      List<Received> ofKey = receivedByKey.get(key);
      assertThat(ofKey).extracting(Received::outboxId).as("ids of %s on the topic", key)
          .isEqualTo(ids);
      assertThat(ofKey).extracting(Received::partition).as("topic partitions of %s", key)
          .containsOnly(ofKey.get(0).partition());
    });
    assertThat(received.stream().filter(record -> record.key() != null)
        .map(Received::partition).distinct().count())
        .as("topic partitions the keys landed on").isGreaterThan(1);
    assertThat(received).allSatisfy(record -> {
      OrderEvent event = published.get(record.outboxId());
      assertThat(record.headers())
          .containsEntry(OutboxKafkaHeaders.OUTBOX, "orders")
          .containsEntry(OutboxKafkaHeaders.TYPE, "OrderEvent")
          .containsEntry(OutboxKafkaHeaders.CONTENT_TYPE, "application/json")
          .containsEntry(OrderEvent.TENANT_HEADER, "acme");
      assertThat(new String(record.value(), StandardCharsets.UTF_8))
          .contains("\"sequence\":" + event.sequence());
      if (event.order() == null) {
        assertThat(record.key()).isNull();
        assertThat(record.headers()).doesNotContainKey(OutboxKafkaHeaders.GROUP_KEY);
      } else {
        assertThat(record.headers()).containsEntry(OutboxKafkaHeaders.GROUP_KEY, event.order());
      }
    });
    assertThat(received.stream().filter(record -> record.key() == null)
        .map(Received::outboxId).collect(Collectors.toSet())).isEqualTo(unkeyed);
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, "orders")).isZero();
  }

  @Test
  void aBrokerStoppedMidStreamAndRestartedLosesNothingAndKeepsEachKeysOrder() throws Exception {
    Map<String, List<Long>> publishedByKey = new LinkedHashMap<>();
    Set<Long> unkeyed = new HashSet<>();
    // The broker stops right after it acknowledged the 100th record, in the middle of a batch.
    CompletableFuture<Integer> down = StopBrokerAfterAcks.arm(100, KAFKA::stop);
    try (TopicTail tail = new TopicTail(KAFKA.bootstrapServers(), STREAM_TOPIC)) {
      try {
        publishStream(0, 60, publishedByKey, unkeyed);
        down.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(admin.counts(STREAM).pending()).as("messages left when the broker went down")
            .isPositive();

        // Publishing goes on while it is down; every attempt to relay fails now, counted and
        // retried later.
        publishStream(60, 10, publishedByKey, unkeyed);
        await().atMost(WAIT)
            .until(() -> metrics.count(OutboxMetrics.FAILED_ATTEMPTS, STREAM) > 0);
        OutboxCounts whileDown = admin.counts(STREAM);
        assertThat(whileDown.retrying()).as("messages waiting for a retry while the broker is down")
            .isPositive();
        assertThat(whileDown.dead()).isZero();
      } finally {
        StopBrokerAfterAcks.disarm();
        KAFKA.start(); // on the same ports and data; a no-op if it never went down
      }

      // Step the clock past the backoff and wake the workers instead of waiting for it.
      Set<Long> expected = new HashSet<>(unkeyed);
      publishedByKey.values().forEach(expected::addAll);
      await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
        container.clock().advance(Duration.ofMinutes(1));
        workers.wakeAll(STREAM);
        tail.poll();
        return tail.ids().containsAll(expected);
      });
      await().atMost(WAIT).until(() -> admin.counts(STREAM).pending() == 0);
      // Each row was confirmed and deleted exactly once, however often it was sent.
      await().atMost(WAIT)
          .until(() -> metrics.count(OutboxMetrics.RELAYED, STREAM) == expected.size());
      await().atMost(WAIT).until(() -> tail.poll() >= 0 && tail.atEnd());
      List<Received> received = tail.received();

      // At least once: every id arrived; nothing arrived that was not published.
      assertThat(tail.ids()).isEqualTo(expected);
      assertThat(admin.counts(STREAM).dead()).isZero();
      Map<String, List<Long>> receivedByKey = received.stream()
          .filter(record -> record.key() != null)
          .collect(Collectors.groupingBy(Received::key, LinkedHashMap::new,
              Collectors.mapping(Received::outboxId, Collectors.toList())));
      assertThat(receivedByKey.keySet()).isEqualTo(publishedByKey.keySet());
      Set<Long> duplicated = new HashSet<>();
      publishedByKey.forEach((key, ids) -> {
        List<Long> onTopic = receivedByKey.get(key);
        assertThat(KeyOrder.violations(onTopic, ids))
            .as("records of %s that are neither its next message nor a copy of one already "
                + "received, in topic order %s", key, onTopic)
            .isEmpty();
        assertThat(onTopic.stream().distinct().toList())
            .as("ids of %s after dropping duplicates by %s", key, OutboxKafkaHeaders.ID)
            .isEqualTo(ids);
        duplicated.addAll(KeyOrder.duplicates(onTopic));
      });
      assertThat(received.stream().filter(record -> record.key() == null)
          .map(Received::outboxId).collect(Collectors.toSet())).isEqualTo(unkeyed);
      long failedAttempts = metrics.count(OutboxMetrics.FAILED_ATTEMPTS, STREAM);
      // A copy exists only of a message whose attempt was counted as failed (its acknowledgement
      // was lost with the broker) and that was sent again.
      assertThat((long) duplicated.size()).as("messages on the topic more than once")
          .isLessThanOrEqualTo(failedAttempts);
      System.out.printf("broker outage through the outbox: %d messages, %d failed attempts, "
          + "%d records on the topic (%d messages more than once)%n", expected.size(),
          failedAttempts, received.size(), duplicated.size());
    }
  }

  @Test
  void anUnknownTopicKillsTheMessagesWithAnErrorNamingTheTopic() throws Exception {
    List<Long> ids = container.inTransaction(() -> List.of(
        outbox.publish("missing", new OrderEvent("lost-order", 1)),
        outbox.publish("missing", new OrderEvent("other-order", 2)),
        outbox.publish("missing", new OrderEvent("lost-order", 3))));

    // max-attempts=1: the first failure kills a message, and its key moves on to the next.
    await().atMost(WAIT).until(() -> admin.dead("missing", 10).size() == 3);
    List<DeadMessage> dead = admin.dead("missing", 10);
    assertThat(dead).extracting(DeadMessage::id).isEqualTo(ids);
    for (DeadMessage message : dead) {
      assertThat(message.attempts()).isEqualTo(1);
      assertThat(message.lastError())
          .startsWith(OutboxException.class.getName())
          .contains("Kafka topic '" + MISSING_TOPIC + "' of outbox 'missing'")
          .contains("create the topic")
          .contains("outbox.missing.kafka.topic")
          .contains("TimeoutException: Topic " + MISSING_TOPIC + " not present in metadata");
    }
    OutboxCounts counts = admin.counts("missing");
    assertThat(counts.pending()).isZero();
    assertThat(counts.dead()).isEqualTo(3);
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.DEAD_LETTERED, "missing") == 3);
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, "missing")).isEqualTo(3);

    // Fixed on the broker: revived, they go out as new messages (new ids above the old ones, given
    // in the old ids' order), in order per key.
    KAFKA.createTopic(MISSING_TOPIC, 1, Map.of());
    try (Admin kafkaAdmin = KAFKA.admin()) {
      // the broker's metadata, which the producer reads, knows the topic
      await().atMost(WAIT).ignoreExceptions().until(() -> kafkaAdmin
          .describeTopics(List.of(MISSING_TOPIC)).allTopicNames().get().containsKey(MISSING_TOPIC));
    }
    assertThat(admin.retryDead("missing")).isEqualTo(3);
    try (TopicTail tail = new TopicTail(KAFKA.bootstrapServers(), MISSING_TOPIC)) {
      await().atMost(WAIT).until(() -> tail.poll() >= 3);
      List<Long> newIds = tail.received().stream().map(Received::outboxId).sorted().toList();
      assertThat(newIds).hasSize(3).doesNotHaveDuplicates()
          .allSatisfy(newId -> assertThat(newId).isGreaterThan(ids.get(2)));
      assertThat(tail.received()).filteredOn(record -> "lost-order".equals(record.key()))
          .extracting(Received::outboxId).containsExactly(newIds.get(0), newIds.get(2));
    }
    await().atMost(WAIT).until(() -> admin.counts("missing").pending() == 0);
    assertThat(admin.counts("missing").dead()).isZero();
  }

  @Test
  void aMessageWhoseManyTinyHeadersMakeTooLargeARecordIsRefusedAtPublishAndOneJustUnderIsDelivered()
      throws Exception {
    // The largest payload the payload limit alone lets through (max.request.size less the 73,728
    // bytes the relay keeps beside it), with 21,845 headers in the core's 65,536-byte budget: as a
    // record it is about 40 KB over max.request.size, refused by the producer at every attempt.
    assertRefusedAtPublish(bulky("crowded-a", 974_848, true));
    // One byte over the limit, by Kafka's own count of the record the relay would send.
    assertRefusedAtPublish(ofRecordSize("crowded-b", MAX_REQUEST_SIZE + 1));

    // Just under it: delivered, every header with it.
    BulkyEvent justUnder = ofRecordSize("crowded-c", MAX_REQUEST_SIZE - 1_080);
    long id = container.inTransaction(() -> outbox.publish(CROWDED, justUnder));
    try (TopicTail tail = new TopicTail(KAFKA.bootstrapServers(), CROWDED_TOPIC)) {
      await().atMost(WAIT).until(() -> tail.poll() >= 1);
      Received received = tail.received().get(0);
      assertThat(received.outboxId()).isEqualTo(id);
      assertThat(received.value()).hasSize(payloadSize(justUnder));
      assertThat(received.headers()).hasSize(BulkyEvent.TINY_HEADERS.size() + 7)
          .containsAllEntriesOf(BulkyEvent.TINY_HEADERS);
      assertThat(kafkaRecordSize(received.key(), received.value(), received.headers()))
          .as("the delivered record's size by Kafka's count: just under max.request.size")
          .isBetween(MAX_REQUEST_SIZE - 1_100, MAX_REQUEST_SIZE);
    }
    await().atMost(WAIT).until(() -> admin.counts(CROWDED).pending() == 0);
    assertThat(admin.counts(CROWDED).dead()).isZero();
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, CROWDED)).isZero();
  }

  @Test
  void healthyMessagesOfABatchWithTwelveRefusedRecordsAreDeliveredNotCharged()
      throws Exception {
    // One transaction, so one batch: 12 messages too large for the topic (each its own group, each
    // refused alone, one aborted Kafka transaction each) among 6 small ones of other groups.
    List<Long> tooLarge = new ArrayList<>();
    List<Long> healthy = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 12; i++) {
        tooLarge.add(outbox.publish(PICKY, new BulkyEvent("large-" + i, "x".repeat(4096), false)));
        if (i % 2 == 1) {
          healthy.add(outbox.publish(PICKY, new BulkyEvent("small-" + i, "fits", false)));
        }
      }
    });

    // max-attempts=1: a charged attempt kills a message. Only the refused ones may die.
    await().atMost(WAIT).until(() -> admin.counts(PICKY).pending() == 0);
    List<DeadMessage> dead = admin.dead(PICKY, 50);
    assertThat(dead).extracting(DeadMessage::id).as("dead messages")
        .containsExactlyInAnyOrderElementsOf(tooLarge);
    assertThat(dead).allSatisfy(message -> assertThat(message.lastError())
        .contains(RecordTooLargeException.class.getName()));
    try (TopicTail tail = new TopicTail(KAFKA.bootstrapServers(), PICKY_TOPIC)) {
      await().atMost(WAIT).until(() -> tail.poll() >= healthy.size());
      await().atMost(WAIT).until(() -> tail.poll() >= 0 && tail.atEnd());
      assertThat(tail.received()).extracting(Received::outboxId)
          .containsExactlyElementsOf(healthy);
    }
  }

  private void assertRefusedAtPublish(BulkyEvent event) {
    assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish(CROWDED, event)))
        .isInstanceOf(InvalidOutboxMessageException.class)
        .hasMessageContaining("Outbox 'crowded'")
        .hasMessageContaining(BulkyEvent.TINY_HEADERS.size() + " headers")
        .hasMessageContaining(payloadSize(event) + " bytes of payload")
        .hasMessageContaining("max.request.size")
        .hasMessageContaining(Long.toString(MAX_REQUEST_SIZE));
  }

  /** A crowded message whose payload makes the relay's record {@code target} bytes by Kafka's count. */
  private static BulkyEvent ofRecordSize(String order, long target) {
    int payload = 900_000;
    for (int i = 0; i < 3; i++) {
      payload += (int) (target - recordSize(bulky(order, payload, true)));
    }
    BulkyEvent event = bulky(order, payload, true);
    assertThat(recordSize(event)).as("record size of the test message").isEqualTo(target);
    return event;
  }

  /** A message whose JSON payload takes exactly {@code payloadBytes}. */
  private static BulkyEvent bulky(String order, int payloadBytes, boolean crowded) {
    BulkyEvent event = new BulkyEvent(order,
        "x".repeat(payloadBytes - payloadSize(new BulkyEvent(order, "", crowded))), crowded);
    assertThat(payloadSize(event)).isEqualTo(payloadBytes);
    return event;
  }

  private static int payloadSize(BulkyEvent event) {
    return JSON.toJson(event).getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * The size Kafka's producer gives the record the relay makes of {@code event} (it refuses one
   * larger than max.request.size), as its first message (id 1, fencing token 1): a later id or
   * token only adds digits.
   */
  private static long recordSize(BulkyEvent event) {
    OutboxRecord record = new OutboxRecord(1, CROWDED, 0, event.order(), "BulkyEvent",
        "application/json", JSON.toJson(event).getBytes(StandardCharsets.UTF_8), event.headers(),
        0, java.time.Instant.now());
    ProducerRecord<String, byte[]> mapped = RecordMapping.toProducerRecord(CROWDED_TOPIC, record, 1);
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : mapped.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    return kafkaRecordSize(mapped.key(), mapped.value(), headers);
  }

  /** Kafka's own upper bound of a record's size in a batch, as the producer checks it. */
  private static long kafkaRecordSize(String key, byte[] value, Map<String, String> headers) {
    Header[] kafkaHeaders = headers.entrySet().stream()
        .map(header -> new RecordHeader(header.getKey(),
            header.getValue().getBytes(StandardCharsets.UTF_8)))
        .toArray(Header[]::new);
    return AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE,
        CompressionType.NONE, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value,
        kafkaHeaders);
  }

  /** What the outbox and the topic hold, for a failure message. */
  private String diagnosis(String outboxName, TopicTail tail) {
    List<OutboxTables.StoredMessage> pending = container.tables().messages(outboxName);
    return "received " + tail.received().size() + ", " + admin.counts(outboxName) + ", failed attempts "
        + metrics.count(OutboxMetrics.FAILED_ATTEMPTS, outboxName) + ", first pending "
        + pending.stream().findFirst().map(m -> m.id() + " attempts " + m.attempts() + " last error "
            + m.lastError()).orElse("none");
  }

  /**
   * Publishes {@code transactions} transactions of one message per key plus one unordered
   * message, numbering transactions from {@code first}.
   */
  private void publishStream(int first, int transactions, Map<String, List<Long>> publishedByKey,
      Set<Long> unkeyed) throws Exception {
    for (int transaction = first; transaction < first + transactions; transaction++) {
      int sequence = transaction * (STREAM_KEYS + 1);
      container.inTransaction(() -> {
        for (int key = 0; key < STREAM_KEYS; key++) {
          String order = "order-" + key;
          publishedByKey.computeIfAbsent(order, k -> new ArrayList<>())
              .add(outbox.publish(STREAM, new OrderEvent(order, sequence + key)));
        }
        unkeyed.add(outbox.publish(STREAM, new OrderEvent(null, sequence + STREAM_KEYS)));
      });
    }
  }

  /** What a consumer that drops duplicates by id sees of one key. */
  static final class KeyOrder {

    private KeyOrder() {}

    /**
     * The records, in topic order, that are neither the key's next message (the first published
     * id not received yet) nor a copy of one received before; and the messages that never came.
     */
    static List<String> violations(List<Long> onTopic, List<Long> published) {
      List<String> violations = new ArrayList<>();
      Set<Long> seen = new HashSet<>();
      int next = 0;
      for (int offset = 0; offset < onTopic.size(); offset++) {
        long id = onTopic.get(offset);
        if (seen.contains(id)) {
          continue; // a re-sent copy
        }
        if (next < published.size() && id == published.get(next)) {
          seen.add(id);
          next++;
        } else {
          violations.add("#" + offset + " is id " + id + " where "
              + (next < published.size() ? "id " + published.get(next) : "nothing more")
              + " was due");
          seen.add(id);
        }
      }
      if (next < published.size()) {
        violations.add("never received: " + published.subList(next, published.size()));
      }
      return violations;
    }

    /** The ids that are on the topic more than once. */
    static Set<Long> duplicates(List<Long> onTopic) {
      Set<Long> seen = new HashSet<>();
      return onTopic.stream().filter(id -> !seen.add(id)).collect(Collectors.toSet());
    }
  }
}
