package dev.outboxer.kafka;

import dev.outboxer.OutboxMessage;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message of the size tests: its JSON payload is {@code {"order":"...","text":"..."}}, so its
 * size follows the text's length; its headers are either none or {@link #TINY_HEADERS}.
 *
 * @param order the group key
 * @param text ASCII filler
 * @param crowded whether it carries {@link #TINY_HEADERS}
 */
public record BulkyEvent(String order, String text, boolean crowded) implements OutboxMessage {

  /**
   * 21,845 headers of 3 bytes each (a 3-character name, an empty value): 65,535 bytes, inside the
   * core's 65,536-byte header budget, but each costs Kafka 2 more bytes of framing (the varints of
   * its name's and value's lengths).
   */
  static final Map<String, String> TINY_HEADERS;

  static {
    String digits = "0123456789abcdefghijklmnopqrstuvwxyz";
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 21_845; i++) {
      headers.put("" + digits.charAt(i / 1296) + digits.charAt(i / 36 % 36) + digits.charAt(i % 36),
          "");
    }
    TINY_HEADERS = Collections.unmodifiableMap(headers);
  }

  @Override
  public String groupKey() {
    return order;
  }

  @Override
  public Map<String, String> headers() {
    return crowded ? TINY_HEADERS : Map.of();
  }
}
