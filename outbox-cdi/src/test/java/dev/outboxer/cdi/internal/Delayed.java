package dev.outboxer.cdi.internal;

import dev.outboxer.OutboxMessage;
import java.time.Instant;

/** A message without @Outboxed that may be relayed at {@code notBefore} at the earliest; its group key is given. */
public record Delayed(String key, int sequence, Instant notBefore) implements OutboxMessage {
  @Override
  public String groupKey() {
    return key;
  }
}
