package dev.outboxer.cdi.internal;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;
import java.util.Map;

/** An ungrouped test message with headers and an explicit type name. */
@Outboxed(value = "orders", type = "audit.entry.v1")
public record AuditEntry(String text) implements OutboxMessage {
  @Override
  public Map<String, String> headers() {
    return Map.of("trace-id", "t-" + text);
  }
}
