package dev.outboxer.jms;

import dev.outboxer.jms.narayana.BrokerFirstTransactionHelper;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Queue;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.jms.client.ActiveMQQueue;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;

/**
 * The JMS objects of the end-to-end tests, produced as CDI beans the way a Java SE application
 * does it (README: "Wiring ... Java SE") and selected by {@code outbox.<name>.jms.*} names.
 *
 * <ul>
 *   <li>{@value #XA_FACTORY}: Narayana's {@code ConnectionFactoryProxy} over Artemis' XA factory,
 *       through {@link BrokerFirstTransactionHelper}; the relay's session enlists in the worker's
 *       transaction as the branch that commits first.</li>
 *   <li>{@value #PROBED_XA_FACTORY}: the same, behind a {@link WorkerTransactionProbe} that lets a
 *       test act inside the worker's transaction.</li>
 *   <li>{@value #PLAIN_FACTORY}: Artemis' plain factory; sends are delivered before the database
 *       commits (at-least-once).</li>
 * </ul>
 */
@ApplicationScoped
public class OutboxMessaging {

  static final String XA_FACTORY = "jms/xaFactory";
  static final String PROBED_XA_FACTORY = "jms/probedXaFactory";
  static final String PLAIN_FACTORY = "jms/plainFactory";

  private ActiveMQXAConnectionFactory xaFactory;
  private ActiveMQConnectionFactory plainFactory;
  private ConnectionFactory jtaAwareFactory;
  private WorkerTransactionProbe probedFactory;

  @PostConstruct
  void create() {
    xaFactory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
    plainFactory = new ActiveMQConnectionFactory(EmbeddedArtemis.URL);
    jtaAwareFactory = BrokerFirstTransactionHelper.connectionFactory(xaFactory);
    probedFactory = new WorkerTransactionProbe(jtaAwareFactory);
  }

  @PreDestroy
  void close() {
    xaFactory.close();
    plainFactory.close();
  }

  /** The probe behind {@value #PROBED_XA_FACTORY}, for tests to arm. */
  WorkerTransactionProbe probe() {
    return probedFactory;
  }

  @Produces
  @Named(XA_FACTORY)
  ConnectionFactory xaFactory() {
    return jtaAwareFactory;
  }

  @Produces
  @Named(PROBED_XA_FACTORY)
  ConnectionFactory probedXaFactory() {
    return probedFactory;
  }

  @Produces
  @Named(PLAIN_FACTORY)
  ConnectionFactory plainFactory() {
    return plainFactory;
  }

  @Produces
  @Named("jms/orders")
  Queue orders() {
    return new ActiveMQQueue("outbox.orders");
  }

  @Produces
  @Named("jms/payments")
  Queue payments() {
    return new ActiveMQQueue("outbox.payments");
  }

  /** A queue the broker does not have (and, with auto-create off, will not create). */
  @Produces
  @Named("jms/missing")
  Queue missing() {
    return new ActiveMQQueue("no.such.queue");
  }

  @Produces
  @Named("jms/stream")
  Queue stream() {
    return new ActiveMQQueue("outbox.stream");
  }
}
