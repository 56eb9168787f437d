package dev.outboxer.rabbitmq;

import dev.outboxer.OutboxMessage;
import java.util.Map;

/**
 * The application message of the end-to-end tests: published through {@code Outbox}, encoded by
 * the core's JSON-B codec, relayed by the RabbitMQ relay. A {@code null} order makes it unordered.
 *
 * @param order the order it is about, also its group key and so its routing key
 * @param sequence its place in the test's stream
 */
public record OrderEvent(String order, int sequence) implements OutboxMessage {

  /** A header of the application's own, passed on as an AMQP header. */
  static final String TENANT_HEADER = "x-tenant";

  @Override
  public String groupKey() {
    return order;
  }

  @Override
  public Map<String, String> headers() {
    return Map.of(TENANT_HEADER, "acme");
  }
}
