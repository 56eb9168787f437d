package dev.outboxer.rabbitmq;

import static dev.outboxer.rabbitmq.RabbitSettings.MAX_SHORT_STRING_BYTES;

import dev.outboxer.spi.MessageConstraints;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What an AMQP 0-9-1 message as the relay sends it cannot carry: header names, the type and the
 * content type are short strings (at most 255 bytes in UTF-8), and the body is at most {@code
 * max-message-size}. The group key is no limit: a long one is hashed into the routing key. Checked
 * at every publish, and by the relay before it sends a stored record (which may predate the check).
 */
final class RabbitMessageConstraints implements MessageConstraints {

  private final long maxMessageSize;

  RabbitMessageConstraints(long maxMessageSize) {
    this.maxMessageSize = maxMessageSize;
  }

  @Override
  public String checkHeader(String name, String value) {
    int bytes = utf8Length(name);
    return bytes > MAX_SHORT_STRING_BYTES ? "has a name of " + bytes + " bytes in UTF-8; an AMQP header name"
        + " holds at most " + MAX_SHORT_STRING_BYTES : null;
  }

  @Override
  public String checkMessage(String type, String groupKey, String contentType, byte[] payload,
      Map<String, String> headers) {
    return problem(type, contentType, payload.length, headers);
  }

  /** Why a message can never be sent, or {@code null}: for publish and for stored records alike. */
  String problem(String type, String contentType, long payloadBytes, Map<String, String> headers) {
    if (utf8Length(type) > MAX_SHORT_STRING_BYTES) {
      return "has a type of " + utf8Length(type) + " bytes in UTF-8; the AMQP type property holds at most "
          + MAX_SHORT_STRING_BYTES;
    }
    if (utf8Length(contentType) > MAX_SHORT_STRING_BYTES) {
      return "has a content type of " + utf8Length(contentType) + " bytes in UTF-8; the AMQP content-type"
          + " property holds at most " + MAX_SHORT_STRING_BYTES;
    }
    if (payloadBytes > maxMessageSize) {
      return "has a payload of " + payloadBytes + " bytes; the rabbitmq relay sends at most " + maxMessageSize
          + " (" + RabbitRelayProvider.MAX_MESSAGE_SIZE + ", as the broker's max_message_size)";
    }
    for (Map.Entry<String, String> header : headers.entrySet()) {
      String problem = checkHeader(header.getKey(), header.getValue());
      if (problem != null) {
        return "header '" + header.getKey() + "' " + problem;
      }
    }
    return null;
  }

  @Override
  public long maxPayloadBytes() {
    return maxMessageSize;
  }

  private static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }
}
