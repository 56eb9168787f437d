package dev.outboxer.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.spi.StandardHeaders;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The RabbitMQ relay driven end to end by the real core, with the guide's recipe for parallel
 * consumers (docs/guides/rabbitmq.md, Ordering): messages published through {@link Outbox} in JTA
 * transactions on PostgreSQL, relayed by four partition workers to a consistent-hash exchange
 * (routing key = group key) with three queues, each read by its own consumer at the same time.
 * Every group lands in one queue, so each consumer sees its groups in publish order.
 *
 * <p>Needs the {@code rabbitmq_consistent_hash_exchange} plugin ({@code .ci/run} enables it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RabbitRelayThroughOutboxTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int QUEUES = 3;

  private LocalRabbitMq rabbit;
  private String exchange;
  private final List<String> queues = new ArrayList<>();
  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;

  /** What each consumer received, in delivery order. */
  private final Map<String, List<Delivery>> receivedByQueue = new ConcurrentHashMap<>();

  record Delivery(long id, String groupKey, Map<String, String> headers, AMQP.BasicProperties properties) {}

  @BeforeAll
  void start() throws Exception {
    rabbit = new LocalRabbitMq();
    exchange = rabbit.exchange("x-consistent-hash");
    for (int i = 0; i < QUEUES; i++) {
      String queue = rabbit.queue();
      // With a consistent-hash exchange the binding key is the queue's weight on the hash ring.
      rabbit.bind(queue, exchange, "10");
      queues.add(queue);
      consume(queue);
    }
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.orders.relay", "rabbitmq");
    config.put("outbox.orders.partitions", "4");
    config.put("outbox.orders.batch-size", "20");
    config.put("outbox.orders.poll-interval", "100ms");
    config.put("outbox.orders.max-poll-interval", "500ms");
    LocalRabbitMq.relaySettings(exchange).forEach((key, value) -> config.put("outbox.orders.rabbitmq." + key, value));
    // Through the data source, as a Java SE application is set up: the relay does not use the worker's transaction,
    // so its batches run in plain database transactions.
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL).viaDataSource().config(config).start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
  }

  private void consume(String queue) throws Exception {
    List<Delivery> received = new CopyOnWriteArrayList<>();
    receivedByQueue.put(queue, received);
    Channel channel = rabbit.channel();
    channel.basicQos(10);
    channel.basicConsume(queue, false, new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
          throws java.io.IOException {
        Map<String, String> headers = new HashMap<>();
        properties.getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
        received.add(new Delivery(Long.parseLong(properties.getMessageId()), headers.get(StandardHeaders.GROUP_KEY),
            headers, properties));
        getChannel().basicAck(envelope.getDeliveryTag(), false);
      }
    });
  }

  @AfterAll
  void stop() throws Exception {
    if (container != null) {
      container.close();
    }
    if (rabbit != null) {
      rabbit.close();
    }
  }

  @Test
  void every_message_reaches_one_queue_per_group_and_each_consumer_sees_its_groups_in_publish_order()
      throws Exception {
    Map<Long, OrderEvent> published = new HashMap<>();
    Map<String, List<Long>> publishedByKey = new LinkedHashMap<>();
    for (int transaction = 0; transaction < 10; transaction++) {
      int base = transaction * 20;
      container.inTransaction(() -> {
        for (int i = 0; i < 20; i++) {
          int sequence = base + i;
          OrderEvent event = new OrderEvent("order-" + sequence % 12, sequence);
          long id = outbox.publish("orders", event);
          published.put(id, event);
          publishedByKey.computeIfAbsent(event.order(), key -> new ArrayList<>()).add(id);
        }
      });
    }

    await().atMost(WAIT).until(() -> distinctReceived().size() >= published.size());
    await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);

    assertThat(distinctReceived()).isEqualTo(published.keySet());
    Map<String, Set<String>> queuesByKey = new HashMap<>();
    Map<String, List<Long>> firstCopiesByKey = new HashMap<>();
    Set<Long> seen = new java.util.HashSet<>();
    receivedByQueue.forEach((queue, deliveries) -> {
      for (Delivery delivery : deliveries) {
        queuesByKey.computeIfAbsent(delivery.groupKey(), key -> new LinkedHashSet<>()).add(queue);
        // At least once: a consumer drops a copy it has already seen.
        if (seen.add(delivery.id())) {
          firstCopiesByKey.computeIfAbsent(delivery.groupKey(), key -> new ArrayList<>()).add(delivery.id());
        }
      }
    });
    assertThat(queuesByKey).as("each group in exactly one queue").allSatisfy((key, inQueues) ->
        assertThat(inQueues).hasSize(1));
    assertThat(receivedByQueue.values()).as("the groups spread over the queues")
        .filteredOn(deliveries -> !deliveries.isEmpty()).hasSizeGreaterThan(1);
    assertThat(firstCopiesByKey).isEqualTo(publishedByKey);
    Delivery any = receivedByQueue.values().stream().flatMap(List::stream).findFirst().orElseThrow();
    assertThat(any.headers())
        .containsEntry(StandardHeaders.OUTBOX, "orders")
        .containsEntry(StandardHeaders.TYPE, "OrderEvent")
        .containsEntry(StandardHeaders.CONTENT_TYPE, "application/json")
        .containsEntry(OrderEvent.TENANT_HEADER, "acme")
        .containsKeys(StandardHeaders.PARTITION, StandardHeaders.FENCING_TOKEN, StandardHeaders.ID);
    assertThat(any.properties().getType()).isEqualTo("OrderEvent");
    assertThat(any.properties().getContentType()).isEqualTo("application/json");
    assertThat(Long.parseLong(any.headers().get(StandardHeaders.FENCING_TOKEN))).isPositive();
  }

  private Set<Long> distinctReceived() {
    Set<Long> ids = new java.util.HashSet<>();
    receivedByQueue.values().forEach(deliveries -> deliveries.forEach(delivery -> ids.add(delivery.id())));
    return ids;
  }
}
