package dev.outboxer.cdi.internal;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/** A grouped test message of the "orders" outbox. */
@Outboxed("orders")
public record OrderPlaced(long orderId, String item) implements OutboxMessage {
  @Override
  public String groupKey() {
    return "order:" + orderId;
  }
}
