package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.kafka.EmbeddedKafkaBroker;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The inbox behind a Kafka consumer, end to end: messages published through the real core on
 * PostgreSQL, relayed by the real Kafka relay (transactional, the default) to an embedded KRaft
 * broker, read with {@code read_committed} by one consumer that runs the CDI-injected inbox and its
 * processing in one JTA transaction per record. Each rolled-back batch was committed in Kafka
 * before the worker's transaction rolled back, so its records arrive twice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaInboxEndToEndTest {

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String TOPIC = "outbox.orders";

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private OutboxTestContainer container;
  private Outbox outbox;
  private RedeliveringInterceptor redelivering;

  @BeforeAll
  void start() throws Exception {
    TestDatabase.POSTGRESQL.assumeAvailable();
    InboxTestSchema.reset(TestDatabase.POSTGRESQL);
    KAFKA.createTopic(TOPIC, 3, Map.of());
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.orders.relay", "kafka");
    // RedeliveringInterceptor dooms the worker's JTA transaction after the relay sent: the relay's batches must run
    // in one (this relay alone would take a plain transaction, Relay.usesWorkerTransaction).
    config.put("outbox.orders.worker-transaction", "jta");
    config.put("outbox.orders.partitions", "2");
    config.put("outbox.orders.batch-size", "10");
    config.put("outbox.orders.poll-interval", "100ms");
    config.put("outbox.orders.max-poll-interval", "300ms");
    config.put("outbox.orders.kafka.topic", TOPIC);
    config.put("outbox.orders.kafka.bootstrap.servers", KAFKA.bootstrapServers());
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .viaDataSource()
        .beans(RedeliveringInterceptor.class)
        .start();
    outbox = container.select(Outbox.class);
    redelivering = container.select(RedeliveringInterceptor.class);
  }

  @AfterAll
  void stop() throws Exception {
    if (container != null) {
      container.close();
    }
  }

  @Test
  void redeliveredBatchesReachTheConsumerAndTheInboxLetsEachRecordThroughOnceInGroupOrder() throws Exception {
    redelivering.arm(3);
    RedeliveredOrders orders = RedeliveredOrders.publish(container, outbox);

    ProcessingConsumer consumer = new ProcessingConsumer(container);
    long deadline = System.nanoTime() + WAIT.toNanos();
    try (KafkaConsumer<String, String> receiver = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "inbox-test",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
      receiver.subscribe(Set.of(TOPIC));
      while (!orders.allConsumed(consumer, redelivering)) {
        assertThat(System.nanoTime()).as("all records consumed within " + WAIT).isLessThan(deadline);
        for (ConsumerRecord<String, String> record : receiver.poll(Duration.ofMillis(200))) {
          consumer.onMessage(KafkaInboxMessage.from(record));
        }
      }
    }

    orders.assertEachProcessedOnceInGroupOrder(container, consumer, redelivering);
  }
}
