package dev.outboxer.jms;

import static dev.outboxer.jms.JmsMessageProperties.JMSX_GROUP_ID;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_CONTENT_TYPE;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_FENCING_TOKEN;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_GROUP_KEY;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_ID;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_NAME;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_PARTITION;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_TYPE;

import dev.outboxer.spi.OutboxRecord;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Session;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Builds the JMS message of a record, as documented on {@link JmsMessageProperties}. */
final class JmsMessageMapper {

  private JmsMessageMapper() {}

  /**
   * @param fencingToken the token of the batch's claim, sent as {@link
   *     JmsMessageProperties#OUTBOX_FENCING_TOKEN}
   */
  static Message toMessage(Session session, OutboxRecord record, long fencingToken)
      throws JMSException {
    Message message;
    byte[] payload = record.payload();
    String text = record.isTextPayload() ? text(record.contentType(), payload) : null;
    if (text != null) {
      message = session.createTextMessage(text);
    } else {
      BytesMessage bytes = session.createBytesMessage();
      bytes.writeBytes(payload);
      message = bytes;
    }
    // Headers first and in name order: the relay's own properties cannot be overwritten (they
    // are reserved by the mapping anyway), and a rare name collision resolves the same each time.
    for (Map.Entry<String, String> header : new TreeMap<>(record.headers()).entrySet()) {
      message.setStringProperty(JmsMessageProperties.forHeader(header.getKey()), header.getValue());
    }
    message.setJMSType(record.type());
    message.setLongProperty(OUTBOX_ID, record.id());
    message.setStringProperty(OUTBOX_NAME, record.outbox());
    message.setStringProperty(OUTBOX_TYPE, record.type());
    message.setStringProperty(OUTBOX_CONTENT_TYPE, record.contentType());
    message.setIntProperty(OUTBOX_PARTITION, record.partition());
    message.setLongProperty(OUTBOX_FENCING_TOKEN, fencingToken);
    if (record.groupKey() != null) {
      message.setStringProperty(OUTBOX_GROUP_KEY, record.groupKey());
      message.setStringProperty(JMSX_GROUP_ID, record.groupKey());
    }
    return message;
  }

  /**
   * The payload of a textual record as text, decoded strictly in the content type's {@code
   * charset} parameter (UTF-8 without one); {@code null} if it is not text in that charset: a
   * malformed or unmappable byte, a charset this JVM does not know, or text that would not encode
   * back to exactly these bytes. The caller then sends the bytes as they are, since a {@code
   * TextMessage} of replaced characters would lose the payload without anyone noticing.
   */
  static String text(String contentType, byte[] payload) {
    Charset charset = charset(contentType);
    if (charset == null || !charset.canEncode()) {
      return null;
    }
    String text;
    ByteBuffer encoded;
    try {
      text = charset.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(payload))
          .toString();
      encoded = charset.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(text));
    } catch (CharacterCodingException e) {
      return null;
    }
    // Some charsets decode several byte sequences to the same text (shift states, a byte-order
    // mark): then the text is not the payload, and the consumer could not get the bytes back.
    byte[] roundTrip = Arrays.copyOfRange(encoded.array(), encoded.arrayOffset(),
        encoded.arrayOffset() + encoded.remaining());
    return Arrays.equals(roundTrip, payload) ? text : null;
  }

  /**
   * The charset the content type declares ({@code text/plain; charset="ISO-8859-1"}), UTF-8 if it
   * declares none, {@code null} if it names one this JVM does not support.
   */
  private static Charset charset(String contentType) {
    String[] parts = contentType.split(";");
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim();
      int equals = parameter.indexOf('=');
      if (equals < 0
          || !parameter.substring(0, equals).trim().toLowerCase(Locale.ROOT).equals("charset")) {
        continue;
      }
      String name = parameter.substring(equals + 1).trim();
      if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
        name = name.substring(1, name.length() - 1);
      }
      try {
        return Charset.forName(name);
      } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
        return null;
      }
    }
    return StandardCharsets.UTF_8;
  }
}
