package dev.outboxer.opentelemetry;

import dev.outboxer.OutboxMessage;
import java.util.Map;

/** A test message of one group, with headers of its own. */
public record Ping(String group, int n, Map<String, String> headers) implements OutboxMessage {

  public Ping(String group, int n) {
    this(group, n, Map.of());
  }

  @Override
  public String groupKey() {
    return group;
  }
}
