package dev.outboxer.inbox;

import java.util.Objects;

/**
 * What the inbox needs to know about a received message: the outbox it was published to, its group
 * key and its id, as every Outboxer relay sends them ({@link dev.outboxer.spi.StandardHeaders}).
 * Build it from a received message with {@link JmsInboxMessage#from} or {@link
 * KafkaInboxMessage#from}, or directly for another transport.
 *
 * @param outbox the outbox name (header {@code outbox-name}), 1 to {@value #MAX_OUTBOX_LENGTH}
 *     characters
 * @param groupKey the group key (header {@code outbox-group-key}), at most {@value
 *     #MAX_GROUP_KEY_LENGTH} characters; {@code null} for a message published without group key
 * @param id the message id (header {@code outbox-id}), positive
 */
public record InboxMessage(String outbox, String groupKey, long id) {

  /** The longest outbox name, as in the outbox's own tables. */
  public static final int MAX_OUTBOX_LENGTH = 100;

  /** The longest group key, as in the outbox's own tables. */
  public static final int MAX_GROUP_KEY_LENGTH = 255;

  /**
   * Checks the values, so that a message that did not come from an Outboxer relay is refused before
   * it reaches the database.
   *
   * @throws IllegalArgumentException naming the field, the value and the rule
   */
  public InboxMessage {
    Objects.requireNonNull(outbox, "outbox");
    if (outbox.isBlank() || outbox.length() > MAX_OUTBOX_LENGTH) {
      throw new IllegalArgumentException("InboxMessage.outbox '" + outbox + "' must have 1 to "
          + MAX_OUTBOX_LENGTH + " characters, as outbox names do");
    }
    if (groupKey != null && groupKey.length() > MAX_GROUP_KEY_LENGTH) {
      throw new IllegalArgumentException("InboxMessage.groupKey of message " + id + " of outbox '" + outbox
          + "' has " + groupKey.length() + " characters; group keys have at most " + MAX_GROUP_KEY_LENGTH);
    }
    if (id <= 0) {
      throw new IllegalArgumentException("InboxMessage.id " + id + " of outbox '" + outbox
          + "' must be positive: outbox ids come from a sequence starting at 1");
    }
  }

  /** @return whether the message has a group key */
  public boolean grouped() {
    return groupKey != null;
  }
}
