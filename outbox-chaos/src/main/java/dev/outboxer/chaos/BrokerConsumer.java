package dev.outboxer.chaos;

import dev.outboxer.inbox.Inbox;
import dev.outboxer.inbox.InboxMessage;
import dev.outboxer.inbox.JmsInboxMessage;
import dev.outboxer.inbox.KafkaInboxMessage;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads what reaches the broker (the JMS queue, the Kafka topic with {@code read_committed}, or the
 * RabbitMQ queue)
 * and records every arrival in the destination database as an ACCEPTED delivery, stamped by the
 * same clock as the faults. The batch of an arrival is its fencing token (the consumer cannot see
 * batches); messages without the token header count as token 0 and partition -1 (the checker then
 * takes the partition from the ledger).
 *
 * <p>With {@code inbox=on} the consumer is an application's: for each arrival it asks the {@link
 * Inbox} (tables in the destination database) inside a local transaction of that database, records
 * the arrival as ACCEPTED (it reached the handler) or DROPPED (a copy the inbox dropped) in the same
 * transaction, commits, and only then acknowledges the JMS message or commits the Kafka offsets, as
 * the main README's inbox examples do.
 */
final class BrokerConsumer implements AutoCloseable {

  /** Kafka's and Artemis' clients log their whole configuration at INFO; the run's output stays short. Held: JUL keeps loggers weakly. */
  private static final List<Logger> QUIET =
      List.of(Logger.getLogger("org.apache.kafka"), Logger.getLogger("org.apache.activemq"));

  static {
    QUIET.forEach(logger -> logger.setLevel(Level.WARNING));
  }

  private final Thread thread;
  private final Inbox inbox;
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong rewinds = new AtomicLong();
  private volatile boolean stopping;
  private volatile Exception failure;

  BrokerConsumer(ChaosSettings settings, Databases databases, Destination destination) {
    inbox = settings.inbox() ? Inbox.builder(dataSource(databases)).build() : null;
    thread = new Thread(() -> {
      try (Connection connection = databases.destination("chaos-consumer")) {
        if (inbox != null) {
          connection.setAutoCommit(false);
        }
        switch (settings.relay()) {
          case "jms" -> consumeJms(settings, connection, destination);
          case "rabbitmq" -> consumeRabbit(settings, connection, destination);
          default -> consumeKafka(settings, connection, destination);
        }
      } catch (Exception e) {
        failure = e;
      }
    }, "chaos-consumer");
    thread.setDaemon(true);
    thread.start();
  }

  long received() {
    return received.get();
  }

  private void consumeJms(ChaosSettings settings, Connection connection, Destination destination) throws Exception {
    try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory("tcp://" + settings.broker());
        JMSContext context = factory.createContext(JMSContext.CLIENT_ACKNOWLEDGE);
        JMSConsumer consumer = context.createConsumer(context.createQueue(NodeConfig.QUEUE_NAME))) {
      while (!stopping) {
        Message message = consumer.receive(500);
        if (message == null) {
          continue;
        }
        long token = longProperty(message, "outboxFencingToken", 0);
        int partition = (int) longProperty(message, "outboxPartition", -1);
        record(connection, destination, message.getLongProperty("outboxId"), message.getStringProperty("outboxGroupKey"),
            partition, token, "token-" + token, message.getJMSTimestamp(),
            inbox == null ? null : JmsInboxMessage.from(message));
        // After the database commit: a crash in between redelivers a message the inbox then drops.
        message.acknowledge();
      }
    }
  }

  /** A RabbitMQ connection to the machine's broker, as the workers' relay makes one. */
  private static com.rabbitmq.client.Connection rabbitConnection(String name) throws Exception {
    com.rabbitmq.client.ConnectionFactory factory = new com.rabbitmq.client.ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setConnectionTimeout(5_000);
    return factory.newConnection(name);
  }

  /**
   * A fresh fanout exchange and one durable queue bound to it, both named {@link
   * NodeConfig#rabbitName}: what an earlier run left there is deleted first. One queue read by one
   * consumer keeps the send order, which the checker then compares with each group's order.
   */
  static void declareRabbitQueue(ChaosSettings settings) throws Exception {
    String name = NodeConfig.rabbitName(settings);
    try (com.rabbitmq.client.Connection connection = rabbitConnection("outboxer-chaos-setup");
        com.rabbitmq.client.Channel channel = connection.createChannel()) {
      channel.queueDelete(name);
      channel.exchangeDelete(name);
      channel.exchangeDeclare(name, "fanout", true);
      channel.queueDeclare(name, true, false, false, null);
      channel.queueBind(name, name, "");
    }
  }

  /**
   * Reads the run's queue one delivery at a time with manual acknowledgements: the arrival (and
   * with the inbox its accept) commits first, then the delivery is acknowledged; a crash in between
   * redelivers a message the inbox then drops. With {@code consumer-rewind-every=N} every Nth
   * delivery is that crash: the channel closes after the database commit, with the delivery
   * unacknowledged, and the broker hands it out again.
   */
  private void consumeRabbit(ChaosSettings settings, Connection connection, Destination destination) throws Exception {
    String queue = NodeConfig.rabbitName(settings);
    int rewindEvery = settings.consumerRewindEvery();
    long sinceRewind = 0;
    try (com.rabbitmq.client.Connection rabbit = rabbitConnection("outboxer-chaos-consumer")) {
      com.rabbitmq.client.Channel channel = rabbit.createChannel();
      while (!stopping) {
        com.rabbitmq.client.GetResponse delivery = channel.basicGet(queue, false);
        if (delivery == null) {
          Thread.sleep(20);
          continue;
        }
        Map<String, Object> headers = delivery.getProps().getHeaders() == null ? Map.of()
            : delivery.getProps().getHeaders();
        long token = Long.parseLong(text(headers, "outbox-fencing-token", "0"));
        int partition = Integer.parseInt(text(headers, "outbox-partition", "-1"));
        java.util.Date sent = delivery.getProps().getTimestamp();
        record(connection, destination, Long.parseLong(text(headers, "outbox-id", "0")),
            text(headers, "outbox-group-key", null), partition, token, "token-" + token,
            sent == null ? 0 : sent.getTime(),
            inbox == null ? null : dev.outboxer.inbox.RabbitInboxMessage.from(delivery.getProps()));
        if (inbox != null && rewindEvery > 0 && ++sinceRewind >= rewindEvery) {
          // Unacknowledged deliveries of a closed channel go back to the queue, at their place.
          channel.close();
          channel = rabbit.createChannel();
          sinceRewind = 0;
          rewinds.incrementAndGet();
        } else {
          channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
        }
      }
    }
  }

  private static String text(Map<String, Object> headers, String name, String absent) {
    Object value = headers.get(name);
    return value == null ? absent : value.toString(); // a LongString's toString is its UTF-8 text
  }

  private static long longProperty(Message message, String name, long absent) throws JMSException {
    return message.propertyExists(name) ? Long.parseLong(message.getObjectProperty(name).toString()) : absent;
  }

  private void consumeKafka(ChaosSettings settings, Connection connection, Destination destination) throws Exception {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.broker(),
        ConsumerConfig.GROUP_ID_CONFIG, "chaos-checker",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        // With the inbox, offsets are committed after the database, as an application would.
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(inbox == null));
    int rewindEvery = settings.consumerRewindEvery();
    long sinceRewind = 0;
    boolean rewound = false;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(NodeConfig.TOPIC));
      while (!stopping) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<String, byte[]> record : records) {
          long id = Long.parseLong(header(record, "outbox-id", "0"));
          long token = Long.parseLong(header(record, "outbox-fencing-token", "0"));
          int partition = Integer.parseInt(header(record, "outbox-partition", "-1"));
          // The Kafka partition is the arrival's lane: only within one is the consumer's order the send order.
          record(connection, destination, id, header(record, "outbox-group-key", null), partition, token,
              "token-" + token + Checker.LANE + "kafka-" + record.partition(), record.timestamp(),
              inbox == null ? null : KafkaInboxMessage.from(record));
        }
        if (inbox == null) {
          continue;
        }
        sinceRewind += records.count();
        // Only after a poll that brought records (each rewind redelivers at least one), and never
        // twice in a row: the poll after a rewind returns the same records, and rewinding again
        // would replay them forever.
        if (rewindEvery > 0 && sinceRewind >= rewindEvery && !records.isEmpty() && !rewound) {
          rewindToCommittedOffsets(consumer);
          sinceRewind = 0;
          rewound = true;
        } else {
          consumer.commitSync();
          rewound = rewound && records.isEmpty();
        }
      }
    }
  }

  /**
   * What a consumer restarted after a crash between its database commit and its offset commit
   * does (the README's Kafka example): it resumes at the last committed offsets, so the records
   * since then arrive a second time and the inbox drops them.
   */
  private void rewindToCommittedOffsets(KafkaConsumer<String, byte[]> consumer) {
    Set<TopicPartition> assigned = consumer.assignment();
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
    for (TopicPartition partition : assigned) {
      OffsetAndMetadata offset = committed.get(partition);
      if (offset == null) {
        consumer.seekToBeginning(List.of(partition));
      } else {
        consumer.seek(partition, offset);
      }
    }
    rewinds.incrementAndGet();
  }

  /**
   * How often the consumer went back to its committed offsets (Kafka) or closed its channel before
   * acknowledging (RabbitMQ) ({@code consumer-rewind-every}).
   */
  long rewinds() {
    return rewinds.get();
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name, String absent) {
    Header header = record.headers().lastHeader(name);
    return header == null ? absent : new String(header.value(), StandardCharsets.UTF_8);
  }

  /**
   * Records one arrival; with the inbox ({@code message} not null), in one transaction with its accept.
   * {@code sentAtMs} is the broker's send time (Kafka's CreateTime, JMSTimestamp): the checker blames a
   * repeat on faults from shortly before it, as it does from a table batch's start.
   */
  private void record(Connection connection, Destination destination, long id, String group, int partition, long token,
      String batch, long sentAtMs, InboxMessage message) throws Exception {
    if (message == null) {
      destination.attempt(connection, id, group, partition, token, "consumer", batch, 0, Math.max(0, sentAtMs),
          Destination.ACCEPTED, null);
    } else {
      try {
        boolean accepted = inbox.accept(connection, message);
        destination.record(connection, id, group, partition, token, "consumer", batch, Math.max(0, sentAtMs),
            accepted ? Destination.ACCEPTED : Destination.DROPPED, accepted ? null : "dropped by the inbox");
        connection.commit();
      } catch (Exception e) {
        connection.rollback();
        throw e;
      }
    }
    received.incrementAndGet();
  }

  /**
   * The destination database as the inbox's data source: it connects once, to find the database and
   * check its tables.
   */
  private static DataSource dataSource(Databases databases) {
    return (DataSource) Proxy.newProxyInstance(BrokerConsumer.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection")) {
            return databases.destination("chaos-inbox");
          }
          if (method.getName().equals("toString")) {
            return "the chaos destination database";
          }
          throw new UnsupportedOperationException("The chaos inbox data source only opens connections, not "
              + method.getName());
        });
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    thread.join(10_000);
    if (failure != null) {
      throw new IllegalStateException("The chaos consumer failed: what reached the broker is not fully recorded", failure);
    }
  }
}
