package dev.outboxer.quarkus.deployment;

import dev.outboxer.jms.narayana.BrokerFirstTransactionHelper;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import jakarta.jms.XAConnectionFactory;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;

/**
 * The JMS objects of {@link QuarkusJmsRelayTest}'s application, as a Quarkus application declares
 * them (the JMS relay's guide, "In Quarkus"): quarkus-artemis-jms makes the connection factories from
 * {@code quarkus.artemis.*}; this class adds the XA one the relay enlists with and the queues, which
 * no Quarkus extension makes.
 */
@ApplicationScoped
public class JmsMessaging {

  /** The name of the XA connection factory ({@code outbox.<name>.jms.connection-factory}). */
  static final String XA_FACTORY = "xa";

  /**
   * Narayana's {@code ConnectionFactoryProxy} over quarkus-artemis-jms' XA factory (the default
   * configuration, {@code quarkus.artemis.xa-enabled=true}): the relay's sessions enlist in the
   * worker's transaction, the broker's branch committing first. Application scoped, so ArC hands the
   * relay a client proxy of it; qualified as Quarkus extensions qualify named objects ({@code @Named}
   * alone would leave it {@code @Default} as well, beside the extension's).
   */
  @Produces
  @ApplicationScoped
  @Identifier(XA_FACTORY)
  ConnectionFactory xaFactory(XAConnectionFactory artemis) {
    return BrokerFirstTransactionHelper.connectionFactory(artemis);
  }

  @Produces
  @Named("jms/orders")
  Queue orders() {
    return new ActiveMQQueue("outbox.orders");
  }

  @Produces
  @Named("jms/held")
  Queue held() {
    return new ActiveMQQueue("outbox.held");
  }

  @Produces
  @Named("jms/plain")
  Queue plain() {
    return new ActiveMQQueue("outbox.plain");
  }

  /** A queue the broker does not have until a test creates it. */
  @Produces
  @Named("jms/later")
  Queue later() {
    return new ActiveMQQueue("outbox.later");
  }
}
