package dev.outboxer.inbox;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;

/**
 * The JMS objects the relay finds by their {@code outbox.<name>.jms.*} names, as a Java SE
 * application produces them: a plain (non-XA) connection factory, so a batch reaches the broker
 * before the worker commits and is sent again if that commit fails (at-least-once).
 */
@ApplicationScoped
public class JmsWiring {

  static final String URL = "vm://0";
  static final String FACTORY = "jms/plain";

  private final ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(URL);

  @PreDestroy
  void close() {
    factory.close();
  }

  @Produces
  @Named(FACTORY)
  ConnectionFactory factory() {
    return factory;
  }

  @Produces
  @Named("jms/orders")
  Queue orders() {
    return new ActiveMQQueue("outbox.orders");
  }

  @Produces
  @Named("jms/late")
  Queue late() {
    return new ActiveMQQueue("outbox.late");
  }
}
