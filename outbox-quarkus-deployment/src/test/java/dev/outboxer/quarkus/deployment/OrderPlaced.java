package dev.outboxer.quarkus.deployment;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/** The event of the test application: one per order, in the customer's group. */
@Outboxed("orders")
public record OrderPlaced(long orderId, String customer, int sequence) implements OutboxMessage {

  @Override
  public String groupKey() {
    return customer;
  }
}
