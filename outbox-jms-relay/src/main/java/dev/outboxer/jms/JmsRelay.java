package dev.outboxer.jms;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import java.lang.System.Logger.Level;
import java.time.Clock;

/**
 * Sends each batch through its own connection and session, on the worker's thread and in the
 * worker's transaction. See the package documentation for the guarantees.
 *
 * <p>Thread-safe: it holds only immutable, thread-safe JMS objects (connection factory and
 * destination); connection, session and producer live for one batch, on one thread.
 */
final class JmsRelay implements Relay {

  private static final System.Logger LOG = System.getLogger(JmsRelay.class.getName());

  private final String outbox;
  private final ConnectionFactory connectionFactory;
  private final String connectionFactoryName;
  private final Destination destination;
  private final String destinationName;
  private final JmsSettings settings;
  private final Clock clock;
  private final boolean jtaAware;
  private volatile boolean closed;

  JmsRelay(
      String outbox,
      ConnectionFactory connectionFactory,
      String connectionFactoryName,
      Destination destination,
      JmsSettings settings,
      Clock clock) {
    this(outbox, connectionFactory, connectionFactoryName, destination, settings, clock,
        JmsResolver.isJtaAwareBean(connectionFactory));
  }

  JmsRelay(
      String outbox,
      ConnectionFactory connectionFactory,
      String connectionFactoryName,
      Destination destination,
      JmsSettings settings,
      Clock clock,
      boolean jtaAware) {
    this.jtaAware = jtaAware;
    this.outbox = outbox;
    this.connectionFactory = connectionFactory;
    this.connectionFactoryName = connectionFactoryName;
    this.destination = destination;
    this.destinationName =
        describe(destination) + " (outbox." + outbox + ".jms.destination=" + settings.destination() + ")";
    this.settings = settings;
    this.clock = clock;
  }

  /**
   * Whether the sessions join the worker's JTA transaction: the connection factory came from JNDI
   * (an application server's factories are JTA-aware) or is Narayana's {@code
   * ConnectionFactoryProxy}, also behind a CDI client proxy (Java SE and Quarkus, see {@link
   * dev.outboxer.jms.narayana.BrokerFirstTransactionHelper}).
   */
  @Override
  public boolean enlistsInWorkerTransaction() {
    return jtaAware;
  }

  @Override
  public void relay(RelayBatch batch) throws InterruptedException {
    if (closed) {
      throw new JmsRelayException(
          "The jms relay of outbox '" + outbox + "' is closed (Outboxer is shutting down);"
              + " the batch is retried later");
    }
    Connection connection;
    try {
      // Per batch: a platform's factory pools connections; in Java EE containers one connection
      // may not carry two sessions at once, and the partition workers run concurrently.
      connection = connectionFactory.createConnection();
    } catch (JMSException e) {
      throw new JmsRelayException(
          "Outbox '" + outbox + "' cannot connect to the JMS broker through connection factory "
              + connectionFactoryName + "; the batch is retried with backoff: " + text(e), e);
    }
    try {
      send(batch, connection);
    } finally {
      close(connection);
    }
  }

  private void send(RelayBatch batch, Connection connection) throws InterruptedException {
    Session session;
    MessageProducer producer;
    try {
      // Created inside the worker's JTA transaction: a JTA-aware (XA) factory enlists the session
      // in it here, and then ignores the session mode. Otherwise it is a non-transacted session
      // whose persistent sends return once the broker has the message.
      session = connection.createSession();
      // No default destination: providers check the destination per send, which makes a missing
      // destination a failure of each record rather than of the batch.
      producer = session.createProducer(null);
    } catch (JMSException e) {
      throw new JmsRelayException(
          "Outbox '" + outbox + "' cannot open a JMS session through connection factory "
              + connectionFactoryName + "; the batch is retried with backoff: " + text(e), e);
    }
    for (OutboxRecord record : batch.records()) {
      if (!batch.claimHeld()) {
        return; // the claim may have lapsed: another node may relay this partition by now
      }
      if (batch.heldBack(record)) {
        continue; // an earlier record of its ordering unit failed: it waits for that one
      }
      checkTime(batch);
      try {
        producer.send(
            destination,
            JmsMessageMapper.toMessage(session, record, batch.fencingToken()),
            settings.deliveryMode(),
            settings.priority(),
            settings.timeToLiveMillis());
      } catch (InvalidDestinationException
          | JMSSecurityException
          | MessageFormatException
          | MessageNotWriteableException e) {
        // About this record or its destination, not the connection: the other units go on.
        batch.fail(record, new JmsRelayException(
            "Outbox '" + outbox + "' could not send message " + record.id() + " (type "
                + record.type() + ") to " + destinationName + ": " + text(e), e));
        continue;
      } catch (JMSException e) {
        // Anything else (connection lost, timeout, a full broker) would likely fail the next
        // send too: fail the batch, which the worker retries with backoff.
        throw new JmsRelayException(
            "Outbox '" + outbox + "' failed sending message " + record.id() + " to "
                + destinationName + "; the rest of the batch is retried with backoff: " + text(e),
            e);
      }
      if (!batch.claimHeld()) {
        // Sent after the claim lapsed: not confirmed. Enlisted (XA), the send cannot commit
        // anyway; with a plain factory it is already delivered, and the next owner sends the
        // record again (a duplicate, or a stale copy the fencing token tells apart).
        return;
      }
      batch.confirm(record);
    }
  }

  private void checkTime(RelayBatch batch) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(
          "The jms relay of outbox '" + outbox + "' was interrupted during a batch");
    }
    if (!clock.instant().isBefore(batch.deadline())) {
      throw new JmsRelayException(
          "The relay timeout of outbox '" + outbox + "' passed (deadline " + batch.deadline()
              + ") before all records were sent to " + destinationName
              + "; the unsent records are retried");
    }
  }

  private void close(Connection connection) {
    try {
      // With an XA factory this only schedules the close for the end of the transaction.
      connection.close();
    } catch (JMSException | RuntimeException e) {
      LOG.log(Level.WARNING, "Outbox '" + outbox + "' could not close its JMS connection", e);
    }
  }

  /** Releases nothing: connections live for one batch. Later batches are refused. */
  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "JmsRelay[outbox=" + outbox + ", destination=" + destinationName + "]";
  }

  static String describe(Destination destination) {
    try {
      if (destination instanceof Queue queue) {
        return "queue '" + queue.getQueueName() + "'";
      }
      if (destination instanceof Topic topic) {
        return "topic '" + topic.getTopicName() + "'";
      }
    } catch (JMSException e) {
      // fall through to the provider's own description
    }
    return String.valueOf(destination);
  }

  /** The provider's message and, if there is one, the root cause's (often the telling part). */
  private static String text(JMSException e) {
    String text = e.getClass().getSimpleName() + ": " + e.getMessage();
    Throwable root = e.getCause() != null ? e.getCause() : e.getLinkedException();
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == null ? text : text + " (" + root + ")";
  }
}
