package dev.outboxer.inbox;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/**
 * The application message of the end-to-end tests, published through the real core. A {@code null}
 * order makes it ungrouped.
 *
 * @param order the order it is about, also its group key
 * @param sequence its place in the test's stream
 */
@Outboxed("orders")
public record OrderEvent(String order, int sequence) implements OutboxMessage {

  @Override
  public String groupKey() {
    return order;
  }
}
