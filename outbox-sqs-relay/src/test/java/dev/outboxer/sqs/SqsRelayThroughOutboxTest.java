package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.work.Workers;
import dev.outboxer.spi.StandardHeaders;
import dev.outboxer.sqs.QueueReader.Received;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQS relay driven end to end by the real core: messages published through {@link Outbox} in
 * a JTA transaction on PostgreSQL, relayed by the partition workers ({@code
 * outbox.<name>.relay=sqs}) to ElasticMQ, received by a real SQS consumer. One ElasticMQ and one
 * container for the class; each test has its own outbox and queue: {@code orders} (a FIFO queue,
 * 4 partitions), {@code stream} (a FIFO queue behind {@link UnreliableEndpoint}; retries wait for
 * the test's clock steps) and {@code audit} (a standard queue, {@code ordering=none}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqsRelayThroughOutboxTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String STREAM = "stream";
  private static final int STREAM_KEYS = 8;

  private UnreliableEndpoint streamEndpoint;
  private String ordersQueue;
  private String streamQueue;
  private String auditQueue;
  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private Workers workers;
  private OutboxMetricsProbe metrics;

  @BeforeAll
  void start() throws Exception {
    ordersQueue = SQS.createFifoQueue("outboxer-orders.fifo");
    streamQueue = SQS.createFifoQueue("outboxer-stream.fifo");
    auditQueue = SQS.createStandardQueue("outboxer-audit");
    streamEndpoint = new UnreliableEndpoint(SQS.endpoint());
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "orders", ordersQueue);
    outboxConfig(config, STREAM, streamQueue);
    config.put("outbox." + STREAM + ".sqs.endpoint", streamEndpoint.endpoint().toString());
    // Small batches: the outage catches several in flight. Retries wait far longer than the
    // test: only its clock steps bring them on.
    config.put("outbox." + STREAM + ".batch-size", "10");
    config.put("outbox." + STREAM + ".relay-timeout", "4s");
    config.put("outbox." + STREAM + ".backoff.min", "30s");
    config.put("outbox." + STREAM + ".backoff.max", "60s");
    outboxConfig(config, "audit", auditQueue);
    config.put("outbox.audit.ordering", "none");
    config.put("outbox.audit.partitions", "2");
    // Through the data source, as a Java SE application is set up: the relay does not use the worker's transaction,
    // so its batches run in plain database transactions.
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL).viaDataSource()
        .config(config)
        .beans(OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    workers = container.select(Workers.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  private static void outboxConfig(Map<String, String> config, String name, String queueUrl) {
    config.put("outbox." + name + ".relay", "sqs");
    config.put("outbox." + name + ".partitions", "4");
    config.put("outbox." + name + ".batch-size", "20");
    config.put("outbox." + name + ".poll-interval", "100ms");
    config.put("outbox." + name + ".max-poll-interval", "500ms");
    SQS.relaySettings(queueUrl)
        .forEach((key, value) -> config.put("outbox." + name + ".sqs." + key, value));
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
    if (streamEndpoint != null) {
      streamEndpoint.close();
    }
  }

  @Test
  void every_message_reaches_the_fifo_queue_once_and_in_publish_order_per_group()
      throws Exception {
    Map<Long, OrderEvent> published = new HashMap<>();
    Map<String, List<Long>> publishedByKey = new LinkedHashMap<>();
    for (int transaction = 0; transaction < 10; transaction++) {
      int base = transaction * 20;
      container.inTransaction(() -> {
        for (int i = 0; i < 20; i++) {
          // 10 interleaved orders hashed over the 4 outbox partitions, and unordered events.
          int sequence = base + i;
          OrderEvent event =
              new OrderEvent(sequence % 8 == 7 ? null : "order-" + sequence % 10, sequence);
          long id = outbox.publish("orders", event);
          published.put(id, event);
          if (event.order() != null) {
            publishedByKey.computeIfAbsent(event.order(), key -> new ArrayList<>()).add(id);
          }
        }
      });
    }

    QueueReader reader = new QueueReader(SQS.client(), ordersQueue);
    await().atMost(WAIT).until(() -> reader.poll() >= published.size());
    await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.RELAYED, "orders") == published.size());
    reader.poll();

    assertThat(reader.received()).extracting(Received::outboxId)
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(published.keySet());
    assertThat(reader.idsByGroupKey()).isEqualTo(publishedByKey);
    assertThat(reader.received()).allSatisfy(message -> {
      OrderEvent event = published.get(message.outboxId());
      assertThat(message.attributes())
          .containsEntry(StandardHeaders.OUTBOX, "orders")
          .containsEntry(StandardHeaders.TYPE, "OrderEvent")
          .containsEntry(StandardHeaders.CONTENT_TYPE, "application/json")
          .containsEntry(OrderEvent.TENANT_HEADER, "acme")
          .containsKeys(StandardHeaders.PARTITION, StandardHeaders.FENCING_TOKEN)
          .doesNotContainKey(SqsMessageAttributes.BODY_ENCODING);
      assertThat(message.body()).contains("\"sequence\":" + event.sequence());
      assertThat(message.deduplicationId()).isEqualTo(Long.toString(message.outboxId()));
      if (event.order() == null) {
        assertThat(message.groupKey()).isNull();
        assertThat(message.groupId()).startsWith("outbox-ungrouped-");
      } else {
        assertThat(message.groupKey()).isEqualTo(event.order());
        assertThat(message.groupId()).isEqualTo(event.order());
      }
    });
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, "orders")).isZero();
  }

  @Test
  void an_endpoint_lost_mid_stream_loses_nothing_and_sqs_drops_the_re_sent_copies()
      throws Exception {
    Map<String, List<Long>> publishedByKey = new LinkedHashMap<>();
    Set<Long> unkeyed = new HashSet<>();
    // SQS stores the 3rd call, then the endpoint goes away before its answer reaches the relay.
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch down = new CountDownLatch(1);
    streamEndpoint.afterForward(call -> {
      if (call.action().equals("SendMessageBatch") && calls.incrementAndGet() == 3) {
        streamEndpoint.down();
        down.countDown();
      }
    });
    QueueReader reader = new QueueReader(SQS.client(), streamQueue);
    try {
      publishStream(0, 30, publishedByKey, unkeyed);
      assertThat(down.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      // Publishing does not touch SQS and goes on; every attempt to relay fails now, counted
      // and retried later.
      publishStream(30, 10, publishedByKey, unkeyed);
      await().atMost(WAIT).until(() -> metrics.count(OutboxMetrics.FAILED_ATTEMPTS, STREAM) > 0);
      OutboxCounts whileDown = admin.counts(STREAM);
      assertThat(whileDown.retrying()).as("messages waiting for a retry while SQS is away")
          .isPositive();
      assertThat(whileDown.dead()).isZero();
    } finally {
      streamEndpoint.afterForward(call -> {});
      streamEndpoint.up();
    }

    // Step the clock past the backoff and wake the workers instead of waiting for it.
    Set<Long> expected = new HashSet<>(unkeyed);
    publishedByKey.values().forEach(expected::addAll);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
      container.clock().advance(Duration.ofMinutes(1));
      workers.wakeAll(STREAM);
      reader.poll();
      return reader.ids().containsAll(expected);
    });
    await().atMost(WAIT).until(() -> admin.counts(STREAM).pending() == 0);
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.RELAYED, STREAM) == expected.size());
    reader.poll();

    // The copies that were sent again after their answer was lost were deduplicated by SQS
    // (same MessageDeduplicationId within five minutes): each message arrived exactly once.
    Set<String> sentOnce = new HashSet<>();
    long sentAgain = streamEndpoint.calls("SendMessageBatch").stream()
        .flatMap(call -> call.body().getJsonArray("Entries").stream())
        .map(entry -> entry.asJsonObject().getString("MessageDeduplicationId"))
        .filter(id -> !sentOnce.add(id))
        .count();
    assertThat(sentAgain).as("messages SQS stored whose answer was lost, sent again").isPositive();
    assertThat(reader.received()).extracting(Received::outboxId)
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(reader.idsByGroupKey()).isEqualTo(publishedByKey);
    assertThat(admin.counts(STREAM).dead()).isZero();
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, STREAM)).isPositive();
  }

  @Test
  void a_standard_queue_without_ordering_gets_every_message_without_group_id() throws Exception {
    List<Long> ids = container.inTransaction(() -> {
      List<Long> published = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        published.add(outbox.publish("audit", new OrderEvent(i % 3 == 0 ? null : "order-" + i, i)));
      }
      return published;
    });

    QueueReader reader = new QueueReader(SQS.client(), auditQueue);
    await().atMost(WAIT).until(() -> reader.poll() >= ids.size());
    await().atMost(WAIT).until(() -> admin.counts("audit").pending() == 0);

    assertThat(reader.received()).extracting(Received::outboxId)
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(reader.received()).allSatisfy(message -> {
      assertThat(message.groupId()).isNull();
      assertThat(message.deduplicationId()).isNull();
    });
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
}
