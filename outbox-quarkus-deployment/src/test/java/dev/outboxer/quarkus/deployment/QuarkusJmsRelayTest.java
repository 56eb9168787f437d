package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.api.core.client.ActiveMQClient;
import org.apache.activemq.artemis.api.core.client.ClientSession;
import org.apache.activemq.artemis.api.core.client.ClientSessionFactory;
import org.apache.activemq.artemis.api.core.client.ServerLocator;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BrokerRelayScenarios} through outbox-jms-relay ({@code outbox.orders.relay=jms}) to an
 * ActiveMQ Artemis broker in the test JVM, with the connection factories of quarkus-artemis-jms
 * ({@code quarkus.artemis.*}), and what the JMS relay adds in Quarkus: sends enlisted in the worker's
 * Narayana transaction through an XA factory (on an XA Agroal data source), the extension's plain
 * factory without enlisting, a named extension factory ({@code @Identifier}), and a record the broker
 * refuses retried and dead-lettered, then relayed by {@code retryDead}.
 *
 * <ul>
 *   <li>{@code orders}, {@code held}: the XA factory {@value JmsMessaging#XA_FACTORY} of {@link JmsMessaging}
 *       (Narayana's proxy over the extension's XA factory);</li>
 *   <li>{@code plain}: {@code outbox.plain.jms.connection-factory} unset, so the extension's
 *       {@code @Default} factory: sends are not enlisted;</li>
 *   <li>{@code later}: the extension's factory {@code quarkus.artemis."other"}, named by
 *       {@code outbox.later.jms.connection-factory=other}, to a queue the broker does not have at first,
 *       {@code max-attempts=2}.</li>
 * </ul>
 */
class QuarkusJmsRelayTest extends BrokerRelayScenarios {

  @RegisterExtension @Order(1)
  static final EmbeddedArtemisBroker ARTEMIS = new EmbeddedArtemisBroker();

  @RegisterExtension @Order(2)
  static final QuarkusUnitTest APP = application("jms", () -> {
    for (String queue : List.of("outbox.orders", "outbox.held", "outbox.plain")) {
      ARTEMIS.createQueue(queue);
    }
    QuarkusJmsRelayTest.APP.overrideConfigKey("quarkus.artemis.url", ARTEMIS.url());
    QuarkusJmsRelayTest.APP.overrideConfigKey("quarkus.artemis.\"other\".url", ARTEMIS.url());
  }, QuarkusJmsRelayTest.class, JmsMessaging.class, WorkerTransactionProbe.class, EmbeddedArtemisBroker.class)
      // XA: the extension's default factory as an XAConnectionFactory bean, an XA data source (PGXADataSource) for
      // the worker's two-phase commit, and Narayana's log in the build directory
      .overrideConfigKey("quarkus.artemis.xa-enabled", "true")
      .overrideConfigKey("quarkus.datasource.jdbc.transactions", "xa")
      .overrideConfigKey("quarkus.transaction-manager.object-store.directory", "target/ObjectStore")
      // quarkus-artemis-jms 3.14.1 wraps its factories for tracing when quarkus-opentelemetry traces (QuarkusTracingTest
      // has it on the class path), and its XA factory bean then cannot be made: ClassCastException,
      // TracingConnectionFactory is not an ActiveMQXAConnectionFactory
      .overrideConfigKey("quarkus.otel.traces.enabled", "false")
      .overrideConfigKey("outbox.orders.jms.connection-factory", JmsMessaging.XA_FACTORY)
      .overrideConfigKey("outbox.orders.jms.destination", "jms/orders")
      .overrideConfigKey("outbox.held.relay", "jms")
      .overrideConfigKey("outbox.held.poll-interval", "100ms")
      .overrideConfigKey("outbox.held.jms.connection-factory", JmsMessaging.XA_FACTORY)
      .overrideConfigKey("outbox.held.jms.destination", "jms/held")
      .overrideConfigKey("outbox.held.backoff.min", "100ms")
      .overrideConfigKey("outbox.plain.relay", "jms")
      .overrideConfigKey("outbox.plain.poll-interval", "100ms")
      .overrideConfigKey("outbox.plain.jms.destination", "jms/plain")
      .overrideConfigKey("outbox.later.relay", "jms")
      .overrideConfigKey("outbox.later.poll-interval", "100ms")
      .overrideConfigKey("outbox.later.max-attempts", "2")
      .overrideConfigKey("outbox.later.backoff.min", "100ms")
      .overrideConfigKey("outbox.later.jms.connection-factory", "other")
      .overrideConfigKey("outbox.later.jms.destination", "jms/later");

  @Inject WorkerTransactionProbe probe;
  @Inject OutboxAdmin admin;

  @Override
  List<String> consume(int count) throws Exception {
    List<String> payloads = new ArrayList<>();
    for (Message message : receive("outbox.orders", count, RECEIVE_WITHIN)) {
      payloads.add(((TextMessage) message).getText());
    }
    return payloads;
  }

  @Test
  void anXaFactorysSendsAreOnTheBrokerOnlyOnceTheWorkersTransactionCommits() throws Exception {
    probe.hold("held");
    long id = audit.record("held", 70_001, "customer-held", 1);
    assertThat(probe.awaitSent("held", 30)).as("the batch was sent within 30 s").isTrue();
    try {
      assertThat(probe.sentInActiveTransaction("held")).as("the batch was sent inside an active JTA transaction").isTrue();
      assertThat(browse("outbox.held")).as("messages on the broker while the worker's transaction is open").isZero();
      assertThat(admin.counts("held").pending()).as("pending rows while the worker's transaction is open").isEqualTo(1);
    } finally {
      probe.release("held");
    }
    List<Message> received = receive("outbox.held", 2, Duration.ofSeconds(10));
    assertThat(received).as("messages once the transaction committed").hasSize(1);
    assertThat(received.get(0).getLongProperty("outboxId")).isEqualTo(id);
    assertThat(admin.counts("held").pending()).isZero();
  }

  @Test
  void aCommitThatFailsAfterTheSendLeavesNothingOnTheBrokerAndTheRetryDeliversOnce() throws Exception {
    probe.failCommits("held", 2);
    long id = audit.record("held", 70_002, "customer-held", 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("held").pending() == 0);
    List<Message> received = receive("outbox.held", 3, Duration.ofSeconds(3));
    assertThat(received).as("messages after two failed commits and one that succeeded").hasSize(1);
    assertThat(received.get(0).getLongProperty("outboxId")).isEqualTo(id);
  }

  @Test
  void theExtensionsPlainFactoryDeliversBeforeTheWorkersTransactionCommits() throws Exception {
    probe.hold("plain");
    long id = audit.record("plain", 70_003, "customer-plain", 1);
    assertThat(probe.awaitSent("plain", 30)).as("the batch was sent within 30 s").isTrue();
    try {
      assertThat(probe.sentInActiveTransaction("plain")).as("the batch was sent inside an active JTA transaction").isTrue();
      assertThat(browse("outbox.plain")).as("messages on the broker while the worker's transaction is open").isEqualTo(1);
    } finally {
      probe.release("plain");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("plain").pending() == 0);
    List<Message> received = receive("outbox.plain", 2, Duration.ofSeconds(3));
    assertThat(received).hasSize(1);
    assertThat(received.get(0).getLongProperty("outboxId")).isEqualTo(id);
  }

  @Test
  void aMissingQueueDeadLettersTheMessageAndRetryDeadRelaysItOnceTheQueueExists() throws Exception {
    long id = audit.record("later", 70_004, "customer-later", 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("later").dead() == 1);
    DeadMessage dead = admin.dead("later", 10).get(0);
    assertThat(dead.id()).isEqualTo(id);
    assertThat(dead.attempts()).isEqualTo(2);
    assertThat(dead.lastError()).contains("InvalidDestinationException").contains("outbox.later")
        .contains("outbox.later.jms.destination=jms/later");

    createQueue("outbox.later");
    assertThat(admin.retryDead("later", id)).isEqualTo(1);
    List<Message> received = receive("outbox.later", 2, Duration.ofSeconds(10));
    assertThat(received).as("messages after retryDead").hasSize(1);
    assertThat(((TextMessage) received.get(0)).getText()).contains("customer-later");
    assertThat(admin.counts("later").dead()).isZero();
  }

  /** Receives up to {@code max} messages from the queue, waiting at most {@code within} for all of them. */
  private static List<Message> receive(String queue, int max, Duration within) {
    List<Message> messages = new ArrayList<>();
    try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(config("quarkus.artemis.url"));
        JMSContext context = factory.createContext();
        JMSConsumer consumer = context.createConsumer(context.createQueue(queue))) {
      long deadline = System.nanoTime() + within.toNanos();
      while (messages.size() < max) {
        long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        Message message = System.nanoTime() < deadline ? consumer.receive(left) : consumer.receiveNoWait();
        if (message == null) {
          break;
        }
        messages.add(message);
      }
    }
    return messages;
  }

  /** How many messages the queue holds, without consuming them. */
  private static int browse(String queue) throws Exception {
    try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(config("quarkus.artemis.url"));
        JMSContext context = factory.createContext();
        QueueBrowser browser = context.createBrowser(context.createQueue(queue))) {
      return Collections.list(browser.getEnumeration()).size();
    }
  }

  /** Creates the queue on the broker over its core protocol (the broker object lives in another class loader). */
  private static void createQueue(String name) throws Exception {
    try (ServerLocator locator = ActiveMQClient.createServerLocator(config("quarkus.artemis.url"));
        ClientSessionFactory sessions = locator.createSessionFactory();
        ClientSession session = sessions.createSession()) {
      // The address first: the broker creates none by itself (EmbeddedArtemisBroker)
      session.createAddress(SimpleString.of(name), RoutingType.ANYCAST, false);
      session.createQueue(QueueConfiguration.of(name).setAddress(name).setRoutingType(RoutingType.ANYCAST)
          .setAutoCreateAddress(true));
    }
  }
}
