package dev.outboxer.inbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.outboxer.spi.StandardHeaders;
import java.util.Map;

/**
 * Reads the outbox, group key and id from the headers of an AMQP message sent by Outboxer's
 * RabbitMQ relay ({@link StandardHeaders}, as text: AMQP long strings, UTF-8). Needs {@code
 * com.rabbitmq:amqp-client} 5.x on the class path (a RabbitMQ consumer has it); nothing else of the
 * inbox does.
 *
 * <p>Acknowledge a delivery only after the transaction that accepted it committed: a delivery that
 * is not acknowledged comes again, and the inbox drops it then.
 *
 * <pre>{@code
 * channel.basicConsume(queue, false, (tag, delivery) -> {
 *     transaction.begin();
 *     if (inbox.accept(RabbitInboxMessage.from(delivery))) {
 *         process(delivery);
 *     }
 *     transaction.commit();
 *     channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
 * }, tag -> { });
 * }</pre>
 */
public final class RabbitInboxMessage {

  private RabbitInboxMessage() {}

  /**
   * @param delivery a delivery of a message sent by the RabbitMQ relay
   * @return its outbox, group key and id
   * @throws InboxException as {@link #from(AMQP.BasicProperties)}
   */
  public static InboxMessage from(Delivery delivery) {
    String where = "AMQP delivery " + delivery.getEnvelope().getDeliveryTag() + " from exchange '"
        + delivery.getEnvelope().getExchange() + "' (routing key '" + InboxMessage.printable(
            delivery.getEnvelope().getRoutingKey()) + "')";
    return from(delivery.getProperties(), where);
  }

  /**
   * For consumers that get the properties apart ({@code DefaultConsumer.handleDelivery}).
   *
   * @param properties the properties of a message sent by the RabbitMQ relay
   * @return its outbox, group key and id
   * @throws InboxException naming the header and its value if the message lacks the {@code
   *     outbox-id} or {@code outbox-name} header (it was not sent by an Outboxer relay), or a header
   *     holds what the relay never sends: something else than text, an id that is not a positive
   *     decimal number, an outbox name or group key the outbox refuses (see {@link InboxMessage}:
   *     an empty or blank group key among them), or bytes that are not UTF-8
   */
  public static InboxMessage from(AMQP.BasicProperties properties) {
    String messageId = properties.getMessageId();
    return from(properties, "AMQP message" + (messageId == null ? "" : " '" + InboxMessage.printable(messageId)
        + "'"));
  }

  private static InboxMessage from(AMQP.BasicProperties properties, String where) {
    Map<String, Object> headers = properties.getHeaders() == null ? Map.of() : properties.getHeaders();
    String id = header(headers, where, StandardHeaders.ID);
    String outbox = header(headers, where, StandardHeaders.OUTBOX);
    String groupKey = header(headers, where, StandardHeaders.GROUP_KEY);
    return InboxMessage.fromHeaders(where, "RabbitMQ", id, outbox, groupKey);
  }

  /**
   * The header's text, or null if absent. The client hands a received string header over as a
   * {@link LongString}, decoded strictly ({@link InboxMessage#utf8Header}). A header of another type
   * (a number, a table) is not the relay's.
   */
  private static String header(Map<String, Object> headers, String where, String name) {
    Object value = headers.get(name);
    if (value == null) {
      if (headers.containsKey(name)) {
        throw new InboxException(where + " has an " + name + " header without a value: the RabbitMQ relay writes"
            + " every header it sends as text and leaves out the group key of an ungrouped message");
      }
      return null;
    }
    if (value instanceof String text) {
      return text;
    }
    if (!(value instanceof LongString) && !(value instanceof byte[])) {
      throw new InboxException(where + " has the " + name + " header of type " + value.getClass().getName()
          + " ('" + InboxMessage.printable(String.valueOf(value)) + "'): the RabbitMQ relay writes every header it"
          + " sends as text");
    }
    byte[] bytes = value instanceof LongString longString ? longString.getBytes() : (byte[]) value;
    return InboxMessage.utf8Header(where, "RabbitMQ", name, bytes);
  }
}
