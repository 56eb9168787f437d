package dev.outboxer.quarkus.deployment;

import java.net.ServerSocket;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An ActiveMQ Artemis broker in the test JVM, on a free TCP port of 127.0.0.1 (the application under
 * test has class loaders of its own, so the in-VM connector would not reach it): no persistence, no
 * security, and no auto-created addresses or queues, so that a queue the test did not create is
 * missing. Register it as a static {@code @RegisterExtension} field before the application: it
 * starts before the class's first test and stops after its last. Only the class loader that
 * started it can call it; the tests inside the application reach it over TCP.
 */
final class EmbeddedArtemisBroker implements BeforeAllCallback, AfterAllCallback {

  private EmbeddedActiveMQ broker;
  private String url;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    url = "tcp://127.0.0.1:" + port;
    Configuration configuration = new ConfigurationImpl()
        .setName("outboxer-quarkus-test")
        .setPersistenceEnabled(false)
        .setSecurityEnabled(false)
        .setJMXManagementEnabled(false)
        .addAcceptorConfiguration("tcp", url)
        .addAddressSetting("#", new AddressSettings().setAutoCreateAddresses(false).setAutoCreateQueues(false));
    broker = new EmbeddedActiveMQ().setConfiguration(configuration).start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (broker != null) {
      broker.stop();
    }
  }

  /** The broker's URL, {@code tcp://127.0.0.1:<port>}. */
  String url() {
    return url;
  }

  /** Creates an anycast queue (a JMS queue) of that name on an address of the same name. */
  void createQueue(String name) {
    try {
      broker.getActiveMQServer().createQueue(QueueConfiguration.of(name).setAddress(name)
          .setRoutingType(RoutingType.ANYCAST).setAutoCreateAddress(true));
    } catch (Exception e) {
      throw new IllegalStateException("cannot create the queue " + name + " on the embedded broker", e);
    }
  }
}
