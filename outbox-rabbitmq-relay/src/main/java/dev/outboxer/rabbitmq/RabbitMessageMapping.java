package dev.outboxer.rabbitmq;

import static dev.outboxer.rabbitmq.RabbitSettings.MAX_SHORT_STRING_BYTES;

import com.rabbitmq.client.AMQP;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.StandardHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns an outbox record into an AMQP message: routing key, properties and headers. The message's
 * own headers come first and Outboxer's {@link StandardHeaders} after them (the names are
 * reserved, so nothing is overwritten); every header value is text, as with the other relays.
 */
final class RabbitMessageMapping {

  private final RabbitSettings settings;

  RabbitMessageMapping(RabbitSettings settings) {
    this.settings = settings;
  }

  /**
   * The routing key: the fixed one if configured, else the group key (hashed if AMQP cannot carry
   * it, so equal keys still route alike), else, for a message without group key, its id, so that a
   * consistent-hash exchange spreads unordered messages over its queues.
   */
  String routingKey(OutboxRecord record) {
    if (settings.routingKey().isPresent()) {
      return settings.routingKey().get();
    }
    String key = record.groupKey();
    if (key == null) {
      return Long.toString(record.id());
    }
    return key.getBytes(StandardCharsets.UTF_8).length <= MAX_SHORT_STRING_BYTES ? key : "sha256-" + sha256(key);
  }

  AMQP.BasicProperties properties(OutboxRecord record, long fencingToken) {
    Map<String, Object> headers = new LinkedHashMap<>(record.headers());
    headers.put(StandardHeaders.ID, Long.toString(record.id()));
    headers.put(StandardHeaders.OUTBOX, record.outbox());
    headers.put(StandardHeaders.TYPE, record.type());
    headers.put(StandardHeaders.CONTENT_TYPE, record.contentType());
    headers.put(StandardHeaders.PARTITION, Integer.toString(record.partition()));
    headers.put(StandardHeaders.FENCING_TOKEN, Long.toString(fencingToken));
    if (record.groupKey() != null) {
      headers.put(StandardHeaders.GROUP_KEY, record.groupKey());
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(Long.toString(record.id()))
        .type(record.type())
        .contentType(record.contentType())
        .timestamp(Date.from(record.createdAt()))
        .deliveryMode(settings.persistent() ? 2 : 1)
        .headers(headers)
        .build();
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
