package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox behind a JMS consumer, end to end: messages published through the real core on
 * PostgreSQL, relayed by the real JMS relay (plain connection factory: at-least-once) to an embedded
 * ActiveMQ Artemis broker, received by one consumer that runs the CDI-injected inbox and its
 * processing in one JTA transaction per message.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JmsInboxEndToEndTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private EmbeddedActiveMQ broker;
  private ActiveMQConnectionFactory consumerFactory;
  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private RedeliveringInterceptor redelivering;

  @BeforeAll
  void start() throws Exception {
    TestDatabase.POSTGRESQL.assumeAvailable();
    InboxTestSchema.reset(TestDatabase.POSTGRESQL);
    broker = new EmbeddedActiveMQ().setConfiguration(new ConfigurationImpl()
        .setName("outbox-inbox-test")
        .setPersistenceEnabled(false)
        .setSecurityEnabled(false)
        .setJMXManagementEnabled(false)
        .addAcceptorConfiguration("in-vm", JmsWiring.URL)
        // A queue that is not there really is missing: sends to it fail.
        .addAddressSetting("#", new AddressSettings().setAutoCreateAddresses(false).setAutoCreateQueues(false)))
        .start();
    createQueue("outbox.orders");
    consumerFactory = new ActiveMQConnectionFactory(JmsWiring.URL);
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "orders", 2, "jms/orders");
    outboxConfig(config, "late", 1, "jms/late");
    config.put("outbox.late.max-attempts", "1");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .viaDataSource()
        .beans(JmsWiring.class, RedeliveringInterceptor.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    redelivering = container.select(RedeliveringInterceptor.class);
  }

  private static void outboxConfig(Map<String, String> config, String name, int partitions, String queue) {
    config.put("outbox." + name + ".relay", "jms");
    config.put("outbox." + name + ".partitions", String.valueOf(partitions));
    config.put("outbox." + name + ".batch-size", "10");
    config.put("outbox." + name + ".poll-interval", "100ms");
    config.put("outbox." + name + ".max-poll-interval", "300ms");
    config.put("outbox." + name + ".jms.connection-factory", JmsWiring.FACTORY);
    config.put("outbox." + name + ".jms.destination", queue);
  }

  @AfterAll
  void stop() throws Exception {
    if (container != null) {
      container.close();
    }
    if (consumerFactory != null) {
      consumerFactory.close();
    }
    if (broker != null) {
      broker.stop();
    }
  }

  @Test
  void redeliveredBatchesReachTheConsumerAndTheInboxLetsEachMessageThroughOnceInGroupOrder() throws Exception {
    redelivering.arm(3);
    RedeliveredOrders orders = RedeliveredOrders.publish(container, outbox);

    ProcessingConsumer consumer = new ProcessingConsumer(container);
    consumeUntil(consumer, "outbox.orders", () -> orders.allConsumed(consumer, redelivering));

    orders.assertEachProcessedOnceInGroupOrder(container, consumer, redelivering);
  }

  @Test
  void aDeadMessageRevivedByTheOperatorIsAcceptedUnderItsNewIdAfterLaterMessagesOfItsGroup() throws Exception {
    // The queue is missing: the first message of the group dies (max-attempts=1).
    long first = container.inTransaction(() -> outbox.publish("late", new OrderEvent("order-late", 1)));
    await().atMost(WAIT).until(() -> admin.counts("late").dead() == 1);
    createQueue("outbox.late");
    long second = container.inTransaction(() -> outbox.publish("late", new OrderEvent("order-late", 2)));
    ProcessingConsumer consumer = new ProcessingConsumer(container);
    consumeUntil(consumer, "outbox.late", () -> consumer.processed().size() == 1);

    assertThat(admin.retryDead("late")).isEqualTo(1);
    consumeUntil(consumer, "outbox.late", () -> consumer.processed().size() == 2);

    List<Long> ids = consumer.processedIds();
    assertThat(ids.get(0)).isEqualTo(second);
    assertThat(ids.get(1)).as("the revived message, under a new id after the group's later message")
        .isGreaterThan(second)
        .isNotEqualTo(first);
    assertThat(consumer.dropped()).isZero();
  }

  @Test
  void aMessageNotSentByTheRelayIsRefusedNamingTheMissingProperty() throws Exception {
    createQueue("foreign");
    try (JMSContext context = consumerFactory.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
      context.createProducer().setProperty(JmsInboxMessage.OUTBOX_NAME, "orders")
          .send(context.createQueue("foreign"), "hello");
      Message message = context.createConsumer(context.createQueue("foreign")).receive(WAIT.toMillis());

      assertThatThrownBy(() -> JmsInboxMessage.from(message))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("has no outboxId property");
    }
  }

  /** Receives and hands each message to the consumer until the condition holds (bounded). */
  private void consumeUntil(ProcessingConsumer consumer, String queue, java.util.function.BooleanSupplier done)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    try (JMSContext context = consumerFactory.createContext(JMSContext.AUTO_ACKNOWLEDGE);
        JMSConsumer receiver = context.createConsumer(context.createQueue(queue))) {
      while (!done.getAsBoolean()) {
        assertThat(System.nanoTime()).as("all messages consumed within " + WAIT).isLessThan(deadline);
        Message message = receiver.receive(200);
        if (message != null) {
          consumer.onMessage(JmsInboxMessage.from(message));
        }
      }
    }
  }

  private void createQueue(String name) throws Exception {
    broker.getActiveMQServer().createQueue(QueueConfiguration.of(name).setAddress(name)
        .setRoutingType(RoutingType.ANYCAST).setAutoCreateAddress(true));
  }
}
