package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox behind a RabbitMQ consumer, end to end: messages published through the real core on
 * PostgreSQL, relayed by the real RabbitMQ relay (publisher confirms) to the local broker through a
 * fanout exchange into one queue, read by one consumer that runs the CDI-injected inbox and its
 * processing in one JTA transaction per delivery and acknowledges after the commit. Each
 * rolled-back batch was confirmed by the broker before the worker's transaction rolled back, so its
 * messages arrive twice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RabbitInboxEndToEndTest {

  private static final Duration WAIT = Duration.ofSeconds(90);

  private final String exchange = "outboxer-inbox-test-" + UUID.randomUUID();
  private Connection connection;
  private Channel channel;
  private String queue;
  private OutboxTestContainer container;
  private Outbox outbox;
  private RedeliveringInterceptor redelivering;

  @BeforeAll
  void start() throws Exception {
    TestDatabase.POSTGRESQL.assumeAvailable();
    InboxTestSchema.reset(TestDatabase.POSTGRESQL);
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setConnectionTimeout(5_000);
    connection = factory.newConnection("outboxer-inbox-test");
    channel = connection.createChannel();
    channel.exchangeDeclare(exchange, "fanout", false, true, null);
    queue = channel.queueDeclare("", false, true, true, null).getQueue();
    channel.queueBind(queue, exchange, "");
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.orders.relay", "rabbitmq");
    // RedeliveringInterceptor dooms the worker's JTA transaction after the relay sent: the relay's batches must run
    // in one (this relay alone would take a plain transaction, Relay.usesWorkerTransaction).
    config.put("outbox.orders.worker-transaction", "jta");
    config.put("outbox.orders.partitions", "2");
    config.put("outbox.orders.batch-size", "10");
    config.put("outbox.orders.poll-interval", "100ms");
    config.put("outbox.orders.max-poll-interval", "300ms");
    config.put("outbox.orders.rabbitmq.host", "127.0.0.1");
    config.put("outbox.orders.rabbitmq.exchange", exchange);
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
    if (connection != null) {
      connection.close(); // the exclusive queue and the auto-delete exchange go with it
    }
  }

  @Test
  void redeliveredBatchesReachTheConsumerAndTheInboxLetsEachMessageThroughOnceInGroupOrder() throws Exception {
    redelivering.arm(3);
    RedeliveredOrders orders = RedeliveredOrders.publish(container, outbox);

    ProcessingConsumer consumer = new ProcessingConsumer(container);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!orders.allConsumed(consumer, redelivering)) {
      assertThat(System.nanoTime()).as("all deliveries consumed within " + WAIT).isLessThan(deadline);
      GetResponse delivery = channel.basicGet(queue, false);
      if (delivery == null) {
        Thread.sleep(50);
        continue;
      }
      consumer.onMessage(RabbitInboxMessage.from(delivery.getProps()));
      channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
    }

    orders.assertEachProcessedOnceInGroupOrder(container, consumer, redelivering);
  }
}
