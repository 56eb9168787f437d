package dev.outboxer.jms;

import dev.outboxer.testing.TestRelayBatch;
import static dev.outboxer.jms.JmsRelayTest.ids;
import static dev.outboxer.jms.TestRecords.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The provider as the core finds it, a CDI bean of type {@link RelayProvider}, resolving the
 * connection factory and the destination from JNDI (Artemis' JNDI provider, see {@link
 * ArtemisTestNaming})
 * and from CDI producers, and rejecting what it cannot resolve.
 */
class JmsRelayProviderTest {

  private static EmbeddedArtemis broker;
  private static WeldContainer cdi;
  private static RelayProvider provider;

  @BeforeAll
  static void start() throws Exception {
    ArtemisTestNaming.install();
    broker = EmbeddedArtemis.start();
    broker.createQueue("jndi.orders");
    broker.createQueue("cdi.orders");
    cdi = new Weld("jms-relay-provider-test")
        .disableDiscovery()
        .addBeanClasses(JmsRelayProvider.class, JavaSeJms.class)
        .initialize();
    provider = cdi.select(RelayProvider.class).get();
  }

  @AfterAll
  static void stop() throws Exception {
    ArtemisTestNaming.uninstall();
    cdi.close();
    broker.close();
  }

  @Test
  void resolvesJndiNamesFirstAndRelaysThroughThem() throws Exception {
    assertThat(provider.name()).isEqualTo("jms");
    Relay relay = provider.create(context(Map.of(
        "connection-factory", "jms/jndiFactory", "destination", "jms/jndiQueue")));

    relay.relay(TestRelayBatch.of(Ordering.GROUP, json(1, "a", "T", "{}")));

    assertThat(ids(broker.receive("jndi.orders", 1, 1000))).containsExactly(1L);
    relay.close();
  }

  @Test
  void fallsBackToCdiBeansWhenJndiDoesNotHaveTheName() throws Exception {
    // No connection-factory key: java:comp/DefaultJMSConnectionFactory is not in this JNDI, so the
    // @Default ConnectionFactory bean is used; the destination comes from its @Named producer.
    Relay relay = provider.create(context(Map.of("destination", "jms/cdiQueue")));

    relay.relay(TestRelayBatch.of(Ordering.GROUP, json(2, "a", "T", "{}")));

    assertThat(ids(broker.receive("cdi.orders", 1, 1000))).containsExactly(2L);
    relay.close();
  }

  /**
   * What the core's start-up check for two-phase commit asks: a factory from JNDI (an application
   * server's, JTA-aware) and Narayana's proxy enlist in the worker's transaction, also behind
   * Weld's client proxy (an application-scoped producer), a bare provider factory does not, though
   * Artemis' also implements XAConnectionFactory.
   */
  @Test
  void tellsTheCoreWhetherItsSessionsEnlistInTheWorkersTransaction() {
    Relay jndi = provider.create(context(Map.of(
        "connection-factory", "jms/jndiFactory", "destination", "jms/jndiQueue")));
    Relay plain = provider.create(context(Map.of("destination", "jms/cdiQueue")));
    Relay narayana = provider.create(context(Map.of(
        "connection-factory", "jms/narayanaFactory", "destination", "jms/cdiQueue")));
    Relay proxied = provider.create(context(Map.of(
        "connection-factory", "jms/scopedNarayanaFactory", "destination", "jms/cdiQueue")));

    assertThat(jndi.enlistsInWorkerTransaction()).isTrue();
    assertThat(plain.enlistsInWorkerTransaction()).isFalse();
    assertThat(narayana.enlistsInWorkerTransaction()).isTrue();
    assertThat(proxied.enlistsInWorkerTransaction()).as("Narayana's proxy behind Weld's client proxy").isTrue();
    List.of(jndi, plain, narayana, proxied).forEach(Relay::close);
  }

  @Test
  void aDestinationFoundNowhereIsAConfigurationErrorNamingTheKeyAndTheValue() {
    assertThatThrownBy(() -> provider.create(context(Map.of("destination", "jms/nowhere"))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.jms.destination=jms/nowhere")
        .hasMessageContaining("JNDI name jms/nowhere")
        .hasMessageContaining("@Named(\"jms/nowhere\")")
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.jms.destination");
  }

  @Test
  void aJndiNameBoundToTheWrongTypeIsAConfigurationError() {
    assertThatThrownBy(() -> provider.create(context(Map.of(
            "connection-factory", "jms/jndiQueue", "destination", "jms/jndiQueue"))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.jms.connection-factory=jms/jndiQueue")
        .hasMessageContaining("not a jakarta.jms.ConnectionFactory");
  }

  @Test
  void aMissingDestinationIsAConfigurationError() {
    assertThatThrownBy(() -> provider.create(context(Map.of("connection-factory", "jms/jndiFactory"))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.jms.destination is not set");
  }

  private static RelayContext context(Map<String, String> properties) {
    return new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), properties);
  }

  /** Keeps a second factory from being a @Default one too, which @Named alone would make it. */
  @jakarta.inject.Qualifier
  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @interface NotDefault {}

  /** How a Java SE application without JNDI hands its JMS objects to the relay. */
  @ApplicationScoped
  static class JavaSeJms {

    @Produces
    @ApplicationScoped
    ConnectionFactory connectionFactory() {
      return new ActiveMQConnectionFactory(EmbeddedArtemis.URL);
    }

    void close(@Disposes ConnectionFactory factory) {
      ((ActiveMQConnectionFactory) factory).close();
    }

    @Produces
    @Named("jms/narayanaFactory")
    @NotDefault
    ConnectionFactory narayanaFactory() {
      return dev.outboxer.jms.narayana.BrokerFirstTransactionHelper.connectionFactory(
          new org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory(EmbeddedArtemis.URL));
    }

    @Produces
    @ApplicationScoped
    @Named("jms/scopedNarayanaFactory")
    @NotDefault
    ConnectionFactory scopedNarayanaFactory() {
      return narayanaFactory();
    }

    @Produces
    @Named("jms/cdiQueue")
    Queue ordersQueue() {
      return new ActiveMQQueue("cdi.orders");
    }
  }
}
