package dev.outboxer.sample;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/**
 * Published to the {@code shipping} outbox, whose relay is the application's own {@link
 * ShippingPartner} bean ({@code outbox.shipping.relay=shipping}). Grouped per order: a shipment
 * the partner refuses holds back nothing else.
 */
@Outboxed("shipping")
public record ShipmentRequested(long orderId, String customer, String item, int quantity) implements OutboxMessage {

  @Override
  public String groupKey() {
    return "order:" + orderId;
  }
}
