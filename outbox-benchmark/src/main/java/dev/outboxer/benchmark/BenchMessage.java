package dev.outboxer.benchmark;

import dev.outboxer.OutboxMessage;
import java.util.Locale;

/**
 * The message every contender moves: a group key out of {@code groups}, a sequence number (its
 * position in the backlog, 0 upwards) and a fixed text, about 200 bytes as JSON.
 *
 * @param group the group key, {@code group-<sequence % groups>}
 * @param sequence the position of the message in its backlog
 * @param note filler text, the same in every message
 */
public record BenchMessage(String group, long sequence, String note) implements OutboxMessage {

  /** Makes the JSON payload about 200 bytes, a typical small domain event. */
  static final String NOTE = "order placed: 3 items, paid by card, ships to the warehouse nearest to the"
      + " customer; this text only gives the payload a realistic size";

  static BenchMessage of(long sequence, int groups) {
    return new BenchMessage(groupOf(sequence, groups), sequence, NOTE);
  }

  static String groupOf(long sequence, int groups) {
    return "group-" + Math.floorMod(sequence, (long) groups);
  }

  /** The index of a group key made by {@link #groupOf}, or -1 for another key. */
  static int groupIndex(String groupKey) {
    if (groupKey == null || !groupKey.startsWith("group-")) {
      return -1;
    }
    try {
      return Integer.parseInt(groupKey.substring("group-".length()));
    } catch (NumberFormatException other) {
      return -1;
    }
  }

  @Override
  public String groupKey() {
    return group;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "BenchMessage[%s #%d]", group, sequence);
  }
}
