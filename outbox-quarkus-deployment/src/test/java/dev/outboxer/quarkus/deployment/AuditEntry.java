package dev.outboxer.quarkus.deployment;

import dev.outboxer.OutboxMessage;

/**
 * An event without {@code @Outboxed}: the tests publish it to the outbox they name ({@code audit}
 * in total order, {@code billing} with retries and dead letters), in the customer's group.
 */
public record AuditEntry(long orderId, String customer, int sequence) implements OutboxMessage {

  @Override
  public String groupKey() {
    return customer;
  }
}
