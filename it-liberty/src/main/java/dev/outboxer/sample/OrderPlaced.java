package dev.outboxer.sample;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/**
 * Published to the {@code orders} outbox (ordering {@code group}, relayed to the JMS queue
 * {@code jms/orderEvents}). The group key is the customer: the events of one customer arrive in the
 * order they were placed, different customers are independent and spread over the partitions.
 */
@Outboxed("orders")
public record OrderPlaced(long orderId, String customer, String item, int quantity) implements OutboxMessage {

  @Override
  public String groupKey() {
    return "customer:" + customer;
  }
}
