package dev.outboxer.cdi.internal;

import dev.outboxer.OutboxMessage;
import java.util.Map;

/**
 * A message whose group key and headers a test chooses freely, including values no well-behaved
 * application would produce (null maps, null names, NUL characters). Only {@link #getText()} is
 * part of the JSON-B payload: the headers and key stay out of it, so that the payload codec never
 * sees them and only Outboxer's own checks do.
 */
public final class Headered implements OutboxMessage {

  private final String groupKey;
  private final Map<String, String> headers;
  private final String text;

  public Headered(String groupKey, Map<String, String> headers, String text) {
    this.groupKey = groupKey;
    this.headers = headers;
    this.text = text;
  }

  public static Headered key(String groupKey) {
    return new Headered(groupKey, Map.of(), "x");
  }

  public static Headered headers(Map<String, String> headers) {
    return new Headered(null, headers, "x");
  }

  public String getText() {
    return text;
  }

  @Override
  public String groupKey() {
    return groupKey;
  }

  @Override
  public Map<String, String> headers() {
    return headers;
  }
}
