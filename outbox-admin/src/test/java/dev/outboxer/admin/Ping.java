package dev.outboxer.admin;

import dev.outboxer.OutboxMessage;

/** A test message of one group. */
public record Ping(String group, int n) implements OutboxMessage {
  @Override
  public String groupKey() {
    return group;
  }
}
