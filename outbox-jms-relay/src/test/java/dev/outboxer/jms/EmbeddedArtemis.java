package dev.outboxer.jms;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
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
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerBasePlugin;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.spi.core.security.ActiveMQSecurityManager;

/**
 * A real ActiveMQ Artemis broker in the test JVM, reachable at {@value #URL}: no persistence, no
 * auto-created destinations (so that a missing queue is really missing), and anyone may do
 * anything except send to addresses starting with {@value #FORBIDDEN_PREFIX}.
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
    return new EmbeddedArtemis(
        new EmbeddedActiveMQ().setConfiguration(config).setSecurityManager(new RoleCheck()).start());
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
