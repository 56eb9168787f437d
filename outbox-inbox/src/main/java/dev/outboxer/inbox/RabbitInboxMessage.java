package dev.outboxer.inbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.outboxer.spi.StandardHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
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
    if (id == null || outbox == null) {
      throw new InboxException(where + " has no " + (id == null ? StandardHeaders.ID : StandardHeaders.OUTBOX)
          + " header: it was not sent by Outboxer's RabbitMQ relay, and the inbox cannot tell whether it is a"
          + " duplicate");
    }
    String groupKey = header(headers, where, StandardHeaders.GROUP_KEY);
    long parsedId;
    try {
      parsedId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw new InboxException(where + " has the " + StandardHeaders.ID + " header '" + InboxMessage.printable(id)
          + "', not a decimal number", e);
    }
    refuse(where, StandardHeaders.ID, id, InboxMessage.idProblem(parsedId));
    refuse(where, StandardHeaders.OUTBOX, outbox, InboxMessage.outboxProblem(outbox));
    refuse(where, StandardHeaders.GROUP_KEY, groupKey, InboxMessage.groupKeyProblem(groupKey));
    return new InboxMessage(outbox, groupKey, parsedId);
  }

  private static void refuse(String where, String header, String value, String problem) {
    if (problem != null) {
      throw new InboxException(where + " has the " + header + " header '" + InboxMessage.printable(value)
          + "', which " + problem + ": it was not sent by Outboxer's RabbitMQ relay, and the inbox cannot tell"
          + " whether it is a duplicate");
    }
  }

  /**
   * The header's text, or null if absent. The client hands a received string header over as a
   * {@link LongString}, decoded here strictly: lenient decoding would turn different invalid bytes
   * into the same U+FFFD and take two groups for one. A header of another type (a number, a table)
   * is not the relay's.
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
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new InboxException(where + " has the " + name + " header " + HexFormat.of().formatHex(bytes, 0,
          Math.min(bytes.length, 64)) + (bytes.length > 64 ? "..." : "") + " (hex), which is not valid UTF-8:"
          + " the RabbitMQ relay writes its headers as UTF-8", e);
    }
  }
}
