package dev.outboxer.opentelemetry;

import jakarta.annotation.PostConstruct;
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
 * The JMS objects the relay of outbox {@code traced} is configured with, produced as CDI beans the
 * way a Java SE application does it (README, "JMS: wiring"): Narayana's proxy over Artemis' XA
 * factory, so that each batch's sends commit with the worker's transaction, and the queue.
 */
@ApplicationScoped
public class TracedJms {

  static final String URL = "vm://0";
  static final String QUEUE = "outbox.traced";

  private ActiveMQXAConnectionFactory xaFactory;

  @PostConstruct
  void create() {
    xaFactory = new ActiveMQXAConnectionFactory(URL);
  }

  @PreDestroy
  void close() {
    xaFactory.close();
  }

  @Produces
  @Named("jms/tracedFactory")
  ConnectionFactory factory() {
    return new ConnectionFactoryProxy(xaFactory,
        new TransactionHelperImpl(com.arjuna.ats.jta.TransactionManager.transactionManager()));
  }

  @Produces
  @Named("jms/traced")
  Queue queue() {
    return new ActiveMQQueue(QUEUE);
  }
}
