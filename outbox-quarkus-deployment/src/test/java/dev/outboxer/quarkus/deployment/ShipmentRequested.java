package dev.outboxer.quarkus.deployment;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/** The event the test application hands to its local (in-process) handler. */
@Outboxed("shipping")
public record ShipmentRequested(long orderId) implements OutboxMessage {

  @Override
  public String groupKey() {
    return "order-" + orderId;
  }
}
