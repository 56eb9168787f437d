package dev.outboxer.jms;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.security.CheckType;
import org.apache.activemq.artemis.core.security.Role;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerBasePlugin;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.spi.core.security.ActiveMQSecurityManager;

/**
 * A real ActiveMQ Artemis broker in the test JVM, reachable at {@value #URL}: no persistence (unless
 * started with {@link #startPersistent}), no auto-created destinations (so that a missing queue is
 * really missing), and anyone may do anything except send to addresses starting with {@value
 * #FORBIDDEN_PREFIX}.
 */
final class EmbeddedArtemis implements AutoCloseable {

  static final String URL = "vm://0";

  /** Queues whose names start with this refuse every send (the broker's authorisation). */
  static final String FORBIDDEN_PREFIX = "forbidden.";

  private final EmbeddedActiveMQ broker;
  private final ActiveMQConnectionFactory consumerFactory = new ActiveMQConnectionFactory(URL);

  private EmbeddedArtemis(EmbeddedActiveMQ broker) {
    this.broker = broker;
  }

  /**
   * @param plugins broker plugins, e.g. a policy that refuses some messages
   */
  static EmbeddedArtemis start(ActiveMQServerBasePlugin... plugins) throws Exception {
    return start(baseConfiguration(plugins));
  }

  /**
   * A broker that keeps its queues and messages in {@code dataDirectory} (NIO journal), so that a
   * broker stopped with {@link #close()} and started again on the same directory still has every
   * message it had accepted, as a production broker would.
   */
  static EmbeddedArtemis startPersistent(Path dataDirectory, ActiveMQServerBasePlugin... plugins)
      throws Exception {
    Configuration config =
        baseConfiguration(plugins)
            .setPersistenceEnabled(true)
            .setJournalType(JournalType.NIO)
            .setJournalDirectory(dataDirectory.resolve("journal").toString())
            .setBindingsDirectory(dataDirectory.resolve("bindings").toString())
            .setPagingDirectory(dataDirectory.resolve("paging").toString())
            .setLargeMessagesDirectory(dataDirectory.resolve("large-messages").toString())
            .setJournalFileSize(1024 * 1024)
            .setJournalMinFiles(2)
            // A clean stop flushes the journal; the tests stop the broker cleanly, so skipping the
            // fsync per message only saves time on a shared machine.
            .setJournalSyncTransactional(false)
            .setJournalSyncNonTransactional(false)
            // Never block producers because the test machine's disk is fuller than Artemis likes.
            .setMaxDiskUsage(-1);
    return start(config);
  }

  private static EmbeddedArtemis start(Configuration config) throws Exception {
    return new EmbeddedArtemis(
        new EmbeddedActiveMQ().setConfiguration(config).setSecurityManager(new RoleCheck()).start());
  }

  private static Configuration baseConfiguration(ActiveMQServerBasePlugin... plugins)
      throws Exception {
    Configuration config =
        new ConfigurationImpl()
            .setName("outbox-jms-relay-test")
            .setPersistenceEnabled(false)
            .setSecurityEnabled(true)
            .putSecurityRoles("#", Set.of(role("everything", true)))
            .putSecurityRoles(FORBIDDEN_PREFIX + "#", Set.of(role("read-only", false)))
            .setJMXManagementEnabled(false)
            .addAcceptorConfiguration("in-vm", URL)
            .addAddressSetting(
                "#", new AddressSettings().setAutoCreateAddresses(false).setAutoCreateQueues(false));
    for (ActiveMQServerBasePlugin plugin : plugins) {
      config.registerBrokerPlugin(plugin);
    }
    return config;
  }

  private static Role role(String name, boolean send) {
    // send, consume, create/delete durable queue, create/delete non-durable queue, manage, browse,
    // create/delete address, view, edit
    return new Role(name, send, true, true, true, true, true, true, true, true, true, true, true);
  }

  /** Everyone is authenticated; what they may do is what the address's roles allow. */
  private static final class RoleCheck implements ActiveMQSecurityManager {
    @Override
    public boolean validateUser(String user, String password) {
      return true;
    }

    @Override
    public boolean validateUserAndRole(
        String user, String password, Set<Role> roles, CheckType checkType) {
      return roles.stream().anyMatch(checkType::hasRole);
    }
  }

  /** Creates an anycast queue (a JMS queue) of that name. */
  void createQueue(String name) throws Exception {
    broker.getActiveMQServer()
        .createQueue(QueueConfiguration.of(name).setAddress(name).setRoutingType(RoutingType.ANYCAST)
            .setAutoCreateAddress(true));
  }

  /** Messages in the queue as the broker counts them, without consuming. */
  long messageCount(String queue) {
    Queue found = broker.getActiveMQServer().locateQueue(queue);
    return found.getMessageCount();
  }

  /** A plain, non-XA connection factory for the broker. */
  ConnectionFactory connectionFactory() {
    return consumerFactory;
  }

  /**
   * Consumes up to {@code max} messages, each waited for at most {@code waitMillis}, in arrival
   * order.
   */
  List<Message> receive(String queue, int max, long waitMillis) {
    List<Message> messages = new ArrayList<>();
    try (JMSContext context = consumerFactory.createContext();
        JMSConsumer consumer = context.createConsumer(context.createQueue(queue))) {
      while (messages.size() < max) {
        Message message = consumer.receive(waitMillis);
        if (message == null) {
          break;
        }
        messages.add(message);
      }
    }
    return messages;
  }

  @Override
  public void close() {
    consumerFactory.close();
    try {
      broker.stop();
    } catch (Exception e) {
      throw new IllegalStateException("The embedded broker did not stop", e);
    }
  }
}
