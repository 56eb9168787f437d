package dev.outboxer.cdi.internal;

import dev.outboxer.OutboxMessage;

/** A message without @Outboxed: published with an explicit outbox; its group key is given. */
public record Keyed(String key, int sequence) implements OutboxMessage {
  @Override
  public String groupKey() {
    return key;
  }
}
