package dev.outboxer.chaos;

import dev.outboxer.jms.narayana.BrokerFirstTransactionHelper;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;

/**
 * The JMS objects of a chaos node (relay {@code jms}), as a Java SE application produces them:
 * Narayana's {@code ConnectionFactoryProxy} over Artemis' XA factory on the broker process's TCP
 * port, through {@link BrokerFirstTransactionHelper}, so that the relay's session enlists in the
 * worker's transaction (two-phase commit with the database) as the branch that commits first.
 */
@ApplicationScoped
public class JmsBeans {

  /** {@code host:port} of the broker, set by the process before the container starts. */
  static volatile String broker;

  private ActiveMQXAConnectionFactory xaFactory;

  @Produces
  @Named(NodeConfig.JMS_FACTORY)
  @ApplicationScoped
  ConnectionFactory factory() {
    if (broker == null || broker.isBlank()) {
      throw new IllegalStateException("The chaos JMS node has no broker address: the orchestrator passes broker=host:port");
    }
    xaFactory = new ActiveMQXAConnectionFactory("tcp://" + broker + "?reconnectAttempts=0");
    // The README's Java SE wiring: the broker's branch commits first, so a worker killed between the
    // two commits leaves its database branch prepared and holding the partition until recovery.
    return BrokerFirstTransactionHelper.connectionFactory(xaFactory);
  }

  @Produces
  @Named(NodeConfig.JMS_QUEUE)
  Queue queue() {
    return new ActiveMQQueue(NodeConfig.QUEUE_NAME);
  }

  @PreDestroy
  void close() {
    if (xaFactory != null) {
      xaFactory.close();
    }
  }
}
