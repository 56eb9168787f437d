package dev.outboxer.testing;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/** The message of the test kit's tests: a shipment of an order, ordered per order. */
@Outboxed("shipments")
public record Shipped(long orderId, String carrier) implements OutboxMessage {

  @Override
  public String groupKey() {
    return "order:" + orderId;
  }
}
