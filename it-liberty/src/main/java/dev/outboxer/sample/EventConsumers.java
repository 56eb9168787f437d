package dev.outboxer.sample;

import static dev.outboxer.jms.JmsMessageProperties.JMSX_GROUP_ID;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_GROUP_KEY;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_ID;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_NAME;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Stands in for the downstream services: consumes the two queues the outboxes relay to, one thread
 * and one consumer per queue (a single consumer sees a queue in order), and records every message
 * in {@link ReceivedEvents}.
 *
 * <p>Threads from the server's {@code ManagedThreadFactory} with a {@code receive} loop rather than
 * a message-driven bean: it needs no activation spec in server.xml (so it works under any
 * application name, in a WAR or an EAR), and Jakarta EE forbids {@code setMessageListener} in
 * application components.
 */
@ApplicationScoped
public class EventConsumers {

  private static final Logger LOG = Logger.getLogger(EventConsumers.class.getName());

  @Resource(lookup = "jms/outboxCF")
  ConnectionFactory connectionFactory;

  @Resource(lookup = "jms/orderEvents")
  Queue orderEvents;

  @Resource(lookup = "jms/auditEvents")
  Queue auditEvents;

  @Resource
  ManagedThreadFactory threads;

  @Inject
  ReceivedEvents received;

  private final List<Thread> consumers = new ArrayList<>();
  private volatile boolean running;

  void start(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
    running = true;
    consumers.add(start("orders", orderEvents));
    consumers.add(start("audit", auditEvents));
  }

  private Thread start(String name, Queue queue) {
    Thread thread = threads.newThread(() -> consume(name, queue));
    thread.setName("orders-sample-consumer-" + name);
    thread.start();
    return thread;
  }

  @PreDestroy
  void stop() {
    running = false;
    for (Thread thread : consumers) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void consume(String name, Queue queue) {
    while (running) {
      try (JMSContext jms = connectionFactory.createContext(JMSContext.AUTO_ACKNOWLEDGE);
          JMSConsumer consumer = jms.createConsumer(queue)) {
        LOG.info("Consuming " + queue + " as '" + name + "'");
        while (running) {
          Message message = consumer.receive(500);
          if (message != null) {
            received.add(toEvent(name, message));
          }
        }
      } catch (JMSRuntimeException | JMSException e) {
        if (running) {
          LOG.log(Level.WARNING, "Consumer '" + name + "' failed; reconnecting in 1s", e);
          pause();
        }
      }
    }
  }

  private static ReceivedEvent toEvent(String queue, Message message) throws JMSException {
    String body = message instanceof TextMessage text ? text.getText() : String.valueOf(message.getBody(Object.class));
    return new ReceivedEvent(queue, message.getLongProperty(OUTBOX_ID), message.getStringProperty(OUTBOX_NAME),
        message.getStringProperty(OUTBOX_GROUP_KEY), message.getStringProperty(JMSX_GROUP_ID), message.getJMSType(), body,
        message.getJMSRedelivered(), Instant.now());
  }

  private static void pause() {
    try {
      Thread.sleep(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
