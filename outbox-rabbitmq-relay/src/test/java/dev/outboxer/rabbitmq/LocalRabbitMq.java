package dev.outboxer.rabbitmq;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * The local RabbitMQ (127.0.0.1:5672, guest/guest; {@code .ci/run} starts it) as the tests use it:
 * exchanges and queues with unique names, created here and deleted by {@link #close()}, so tests
 * never share or leave topology behind. Not thread-safe: one per test.
 *
 * <p>Public for other modules' tests, through this module's test-jar; not part of any API.
 */
public final class LocalRabbitMq implements AutoCloseable {

  public static final String HOST = "127.0.0.1";
  public static final int PORT = 5672;

  private final ConnectionFactory factory = new ConnectionFactory();
  private Connection connection;
  private final List<String> exchanges = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private final String prefix = "outboxer-test-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  public LocalRabbitMq() throws IOException {
    factory.setHost(HOST);
    factory.setPort(PORT);
    factory.setAutomaticRecoveryEnabled(false);
    channel().abort();
  }

  /** A durable exchange of the given type, unique to this test. */
  public String exchange(String type) throws Exception {
    String name = prefix + "x" + exchanges.size();
    try (Channel channel = channel()) {
      channel.exchangeDeclare(name, type, true);
    }
    exchanges.add(name);
    return name;
  }

  public String directExchange() throws Exception {
    return exchange(BuiltinExchangeType.DIRECT.getType());
  }

  /** A durable queue with the given arguments, unique to this test. */
  String queue(Map<String, Object> arguments) throws Exception {
    String name = prefix + "q" + queues.size();
    try (Channel channel = channel()) {
      channel.queueDeclare(name, true, false, false, arguments);
    }
    queues.add(name);
    return name;
  }

  public String queue() throws Exception {
    return queue(Map.of());
  }

  public void bind(String queue, String exchange, String routingKey) throws Exception {
    try (Channel channel = channel()) {
      channel.queueBind(queue, exchange, routingKey);
    }
  }

  void deleteQueue(String queue) throws Exception {
    try (Channel channel = channel()) {
      channel.queueDelete(queue);
    }
  }

  void deleteExchange(String exchange) throws Exception {
    try (Channel channel = channel()) {
      channel.exchangeDelete(exchange);
    }
  }

  /** Every message in the queue, in queue order, acknowledged (the queue is empty afterwards). */
  public List<GetResponse> drain(String queue) throws Exception {
    List<GetResponse> messages = new ArrayList<>();
    try (Channel channel = channel()) {
      for (GetResponse message = channel.basicGet(queue, true); message != null;
          message = channel.basicGet(queue, true)) {
        messages.add(message);
      }
    }
    return messages;
  }

  /** The outbox ids of every message in the queue, in queue order (drains it). */
  List<Long> drainIds(String queue) throws Exception {
    return drain(queue).stream().map(message -> Long.parseLong(message.getProps().getMessageId())).toList();
  }

  /** The relay settings of outbox 'orders' for this broker and the exchange, without prefix. */
  public static Map<String, String> relaySettings(String exchange) {
    return Map.of("host", HOST, "port", Integer.toString(PORT), "exchange", exchange);
  }

  /** A channel on the test's own connection, opened again after a broker restart. */
  Channel channel() throws IOException {
    if (connection == null || !connection.isOpen()) {
      try {
        connection = factory.newConnection("outboxer-tests");
      } catch (TimeoutException e) {
        throw new IOException(e);
      }
    }
    return connection.createChannel();
  }

  @Override
  public void close() throws Exception {
    try (Channel channel = channel()) {
      for (String queue : queues) {
        channel.queueDelete(queue);
      }
      for (String exchange : exchanges) {
        channel.exchangeDelete(exchange);
      }
    } finally {
      connection.abort();
    }
  }
}
