package dev.outboxer.jms;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;
import java.util.Map;

/**
 * The application message of the end-to-end tests: published through {@code Outbox}, serialised by
 * the core's JSON-B codec, relayed by the JMS relay. A {@code null} order makes it unordered.
 *
 * @param order the order it is about, also its group key
 * @param sequence its place in the test's stream
 */
@Outboxed("orders")
public record OrderEvent(String order, int sequence) implements OutboxMessage {

  /** The header every event carries; the relay maps its name to {@code x_HYPHEN_tenant}. */
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
