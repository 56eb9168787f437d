package dev.outboxer.local;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/** The tests' message: the n-th event of a group. */
@Outboxed("orders")
public record OrderEvent(String group, int seq) implements OutboxMessage {
  @Override
  public String groupKey() {
    return group;
  }
}
