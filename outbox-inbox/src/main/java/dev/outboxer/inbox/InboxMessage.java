package dev.outboxer.inbox;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the inbox needs to know about a received message: the outbox it was published to, its group
 * key and its id, as every Outboxer relay sends them ({@link dev.outboxer.spi.StandardHeaders}).
 * Build it from a received message with {@link JmsInboxMessage#from}, {@link
 * KafkaInboxMessage#from} or {@link RabbitInboxMessage#from(com.rabbitmq.client.Delivery)}, or
 * directly for another transport.
 *
 * <p>The values it refuses are those the outbox refuses at publish, so that every message an
 * Outboxer relay sends is accepted and anything else fails before it reaches the database: an outbox
 * name is 1 to {@value #MAX_OUTBOX_LENGTH} letters, digits, {@code '_'} or {@code '-'}; a group key
 * is {@code null} or 1 to {@value #MAX_GROUP_KEY_LENGTH} characters counted as Unicode code points
 * (an emoji is one, though it is two Java {@code char}s), not blank, without NUL (U+0000) and
 * without unpaired surrogates; an id is positive. The group key is kept exactly as given: no
 * trimming, no case folding.
 *
 * @param outbox the outbox name (header {@code outbox-name})
 * @param groupKey the group key (header {@code outbox-group-key}); {@code null} for a message
 *     published without group key
 * @param id the message id (header {@code outbox-id}), positive
 */
public record InboxMessage(String outbox, String groupKey, long id) {

  /** The longest outbox name, as the outbox configuration allows and the tables hold. */
  public static final int MAX_OUTBOX_LENGTH = 100;

  /** The longest group key in Unicode code points, as the outbox allows at publish. */
  public static final int MAX_GROUP_KEY_LENGTH = 255;

  /**
   * Checks the values, so that a message that did not come from an Outboxer relay is refused before
   * it reaches the database.
   *
   * @throws IllegalArgumentException naming the field, the value and the rule
   * @throws NullPointerException if {@code outbox} is null
   */
  public InboxMessage {
    Objects.requireNonNull(outbox, "outbox");
    String problem = outboxProblem(outbox);
    if (problem != null) {
      throw new IllegalArgumentException("InboxMessage.outbox '" + printable(outbox) + "' " + problem);
    }
    problem = groupKeyProblem(groupKey);
    if (problem != null) {
      throw new IllegalArgumentException("InboxMessage.groupKey '" + printable(groupKey) + "' of message " + id
          + " of outbox '" + outbox + "' " + problem);
    }
    problem = idProblem(id);
    if (problem != null) {
      throw new IllegalArgumentException("InboxMessage.id " + id + " of outbox '" + outbox + "' " + problem);
    }
  }

  /** @return whether the message has a group key */
  public boolean grouped() {
    return groupKey != null;
  }

  /** What is wrong with an outbox name, or {@code null}: the rule of the outbox configuration. */
  static String outboxProblem(String outbox) {
    if (outbox.length() > MAX_OUTBOX_LENGTH) {
      return "has " + outbox.length() + " characters; outbox names have 1 to " + MAX_OUTBOX_LENGTH
          + " letters, digits, '_' or '-'";
    }
    if (!OUTBOX_NAME.matcher(outbox).matches()) {
      return "is not an outbox name: outbox names have 1 to " + MAX_OUTBOX_LENGTH + " letters, digits, '_' or '-'";
    }
    return null;
  }

  /**
   * What is wrong with a group key, or {@code null}: the outbox's rules at publish, in the same
   * order (blank, then NUL and surrogates, then length).
   */
  static String groupKeyProblem(String groupKey) {
    if (groupKey == null) {
      return null;
    }
    if (groupKey.isBlank()) {
      return "is blank; the outbox refuses blank group keys (an ungrouped message has no key at all)";
    }
    for (int i = 0; i < groupKey.length(); i++) {
      char c = groupKey.charAt(i);
      if (c == '\u0000') {
        return "contains a NUL character (U+0000) at index " + i + ", which the outbox refuses";
      }
      if (Character.isHighSurrogate(c) && i + 1 < groupKey.length() && Character.isLowSurrogate(groupKey.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return "is not valid Unicode: an unpaired surrogate (U+" + String.format("%04X", (int) c) + ") at index " + i
            + ", which the outbox refuses";
      }
    }
    // Code points, as the outbox counts (and PostgreSQL and MariaDB's utf8mb4 store) them.
    int length = groupKey.codePointCount(0, groupKey.length());
    if (length > MAX_GROUP_KEY_LENGTH) {
      return "has " + length + " characters (Unicode code points); group keys have at most " + MAX_GROUP_KEY_LENGTH;
    }
    return null;
  }

  /**
   * The message from the three header values a broker relay sends as text ({@link
   * dev.outboxer.spi.StandardHeaders}), each refused as what the relay never sends: an id that is
   * not a positive decimal number, an outbox name or group key the outbox refuses.
   *
   * @param where the received message, as a refusal names it ("Kafka record t-1@5")
   * @param relay the relay that sends such messages ("Kafka", "RabbitMQ")
   * @param id the {@code outbox-id} header, or null if absent
   * @param outbox the {@code outbox-name} header, or null if absent
   * @param groupKey the {@code outbox-group-key} header, or null
   * @throws InboxException naming the message, the header and its value, or the missing header
   */
  static InboxMessage fromHeaders(String where, String relay, String id, String outbox, String groupKey) {
    if (id == null || outbox == null) {
      throw new InboxException(where + " has no " + (id == null ? dev.outboxer.spi.StandardHeaders.ID
          : dev.outboxer.spi.StandardHeaders.OUTBOX) + " header: it was not sent by Outboxer's " + relay + " relay, and"
          + " the inbox cannot tell whether it is a duplicate");
    }
    long parsedId;
    try {
      parsedId = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw new InboxException(where + " has the " + dev.outboxer.spi.StandardHeaders.ID + " header '" + printable(id)
          + "', not a decimal number", e);
    }
    refuseHeader(where, relay, dev.outboxer.spi.StandardHeaders.ID, id, idProblem(parsedId));
    refuseHeader(where, relay, dev.outboxer.spi.StandardHeaders.OUTBOX, outbox, outboxProblem(outbox));
    refuseHeader(where, relay, dev.outboxer.spi.StandardHeaders.GROUP_KEY, groupKey, groupKeyProblem(groupKey));
    return new InboxMessage(outbox, groupKey, parsedId);
  }

  private static void refuseHeader(String where, String relay, String header, String value, String problem) {
    if (problem != null) {
      throw new InboxException(where + " has the " + header + " header '" + printable(value) + "', which " + problem
          + ": it was not sent by Outboxer's " + relay + " relay, and the inbox cannot tell whether it is a duplicate");
    }
  }

  /**
   * A header's bytes as text, decoded strictly: lenient decoding would turn different invalid bytes
   * into the same U+FFFD and take two groups for one.
   *
   * @throws InboxException naming the message, the header and its bytes (hex) if they are not UTF-8
   */
  static String utf8Header(String where, String relay, String name, byte[] bytes) {
    try {
      return java.nio.charset.StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes))
          .toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new InboxException(where + " has the " + name + " header " + java.util.HexFormat.of().formatHex(bytes, 0,
          Math.min(bytes.length, 64)) + (bytes.length > 64 ? "..." : "") + " (hex), which is not valid UTF-8: the "
          + relay + " relay writes its headers as UTF-8", e);
    }
  }

  /** What is wrong with an id, or {@code null}. */
  static String idProblem(long id) {
    return id > 0 ? null : "must be positive: outbox ids come from a sequence starting at 1";
  }

  /** A value as it can be shown in a message: control characters and surrogates escaped, shortened. */
  static String printable(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder shown = new StringBuilder();
    int i = 0;
    for (; i < text.length() && shown.length() < 80; i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7F || Character.isSurrogate(c) && !validPair(text, i)) {
        shown.append(String.format("\\u%04X", (int) c));
      } else {
        shown.append(c);
      }
    }
    if (i < text.length() && Character.isLowSurrogate(text.charAt(i)) && validPair(text, i)) {
      shown.append(text.charAt(i++)); // not half an emoji
    }
    return i < text.length() ? shown + "..." : shown.toString();
  }

  private static boolean validPair(String text, int i) {
    char c = text.charAt(i);
    return Character.isHighSurrogate(c) ? i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))
        : i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
  }

  private static final Pattern OUTBOX_NAME = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_OUTBOX_LENGTH + "}");
}
