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
    if (record.isTextPayload()) {
      message = session.createTextMessage(record.payloadText());
    } else {
      BytesMessage bytes = session.createBytesMessage();
      bytes.writeBytes(record.payload());
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
}
