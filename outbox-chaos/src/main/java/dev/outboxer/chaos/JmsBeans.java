package dev.outboxer.chaos;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;
import org.jboss.narayana.jta.jms.ConnectionFactoryProxy;
import org.jboss.narayana.jta.jms.TransactionHelperImpl;

/**
 * The JMS objects of a chaos node (relay {@code jms}), as a Java SE application produces them:
 * Narayana's {@link ConnectionFactoryProxy} over Artemis' XA factory on the broker process's TCP
 * port, so that the relay's session enlists in the worker's transaction (two-phase commit with the
 * database).
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
    return new ConnectionFactoryProxy(xaFactory,
        new TransactionHelperImpl(com.arjuna.ats.jta.TransactionManager.transactionManager()));
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
