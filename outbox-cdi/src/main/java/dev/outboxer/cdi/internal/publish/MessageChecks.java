package dev.outboxer.cdi.internal.publish;

import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.spi.Setting;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;

import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.StandardHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The checks {@code publish} makes before anything is written, each failing with an {@link
 * InvalidOutboxMessageException} that names the outbox, the field, what is wrong and the limit.
 * Outboxer's own rules come first (what no database column or destination can hold); the relay's
 * {@link MessageConstraints} follow.
 */
final class MessageChecks {

  /** Column limits, in characters (code points), as PostgreSQL, MariaDB (utf8mb4) and H2 count them. */
  static final int MAX_GROUP_KEY_LENGTH = 255;
  static final int MAX_TYPE_LENGTH = 255;
  static final int MAX_CONTENT_TYPE_LENGTH = 100;
  static final int MAX_HEADER_NAME_LENGTH = 255;
  /** Names and values together, UTF-8 bytes. */
  static final int MAX_HEADER_BYTES = 65_536;

  private MessageChecks() {}

  static String groupKey(String outbox, String groupKey) {
    if (groupKey == null) {
      return null;
    }
    if (groupKey.isBlank()) {
      throw invalid(outbox, "groupKey", "the group key is blank (\"" + groupKey + "\"): use null for an unordered"
          + " message, or a key that names the entity whose messages must stay in order");
    }
    text(outbox, "groupKey", "the group key", groupKey);
    int length = groupKey.codePointCount(0, groupKey.length());
    if (length > MAX_GROUP_KEY_LENGTH) {
      throw invalid(outbox, "groupKey", "the group key is " + length + " characters long; the limit is "
          + MAX_GROUP_KEY_LENGTH + " characters (counted as Unicode code points): use a shorter key, such as the"
          + " entity's id");
    }
    return groupKey;
  }

  static void headers(String outbox, Map<String, String> headers, MessageConstraints constraints) {
    if (headers == null) {
      throw invalid(outbox, "headers", "headers() returned null: return Map.of() for a message without headers");
    }
    long bytes = 0;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      String name = header.getKey();
      String value = header.getValue();
      if (name == null) {
        throw invalid(outbox, "headers", "a header has a null name");
      }
      String field = "header '" + printable(name) + "'";
      if (name.isEmpty()) {
        throw invalid(outbox, field, "a header has an empty name");
      }
      text(outbox, field, "the name of " + field, name);
      int nameLength = name.codePointCount(0, name.length());
      if (nameLength > MAX_HEADER_NAME_LENGTH) {
        throw invalid(outbox, field, "the name of a header is " + nameLength + " characters long; the limit is "
            + MAX_HEADER_NAME_LENGTH);
      }
      if (name.toLowerCase(Locale.ROOT).startsWith(StandardHeaders.RESERVED_PREFIX)) {
        throw invalid(outbox, field, field + " uses the prefix '" + StandardHeaders.RESERVED_PREFIX + "', which is"
            + " reserved for the headers Outboxer adds itself (" + StandardHeaders.ID + ", " + StandardHeaders.GROUP_KEY
            + ", ...): rename it");
      }
      if (value == null) {
        throw invalid(outbox, field, field + " has a null value: leave the header out instead");
      }
      text(outbox, field, "the value of " + field, value);
      String refused = constraints.checkHeader(name, value);
      if (refused != null) {
        throw invalid(outbox, field, field + " " + refused);
      }
      bytes += name.getBytes(StandardCharsets.UTF_8).length + (long) value.getBytes(StandardCharsets.UTF_8).length;
    }
    long limit = Math.min(MAX_HEADER_BYTES, constraints.maxHeaderBytes());
    if (bytes > limit) {
      throw invalid(outbox, "headers", "the headers take " + bytes + " bytes (names and values, UTF-8); the limit is "
          + limit + " bytes" + (limit < MAX_HEADER_BYTES ? " (the relay's destination)" : ""));
    }
  }

  /** Text a database column and every destination can hold: no NUL, valid Unicode. */
  static void text(String outbox, String field, String what, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\u0000') {
        throw invalid(outbox, field, what + " contains a NUL character (U+0000) at index " + i + ", which"
            + " PostgreSQL cannot store and most destinations cannot carry");
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw invalid(outbox, field, what + " is not valid Unicode: an unpaired surrogate (U+"
            + String.format("%04X", (int) c) + ") at index " + i + " cannot be stored as UTF-8");
      }
    }
  }

  /**
   * The message's earliest relay time as stored (UTC, microseconds), or null for "as soon as
   * possible": none, now or past (clocks of nodes differ, so a time just past is no mistake).
   *
   * @throws InvalidOutboxMessageException naming {@code notBefore} for a time further ahead than
   *     {@code maxDelay}
   */
  static LocalDateTime notBefore(String outbox, Instant notBefore, Instant now, Duration maxDelay,
      String maxDelayKey) {
    if (notBefore == null) {
      return null;
    }
    notBefore = notBefore.truncatedTo(ChronoUnit.MICROS); // as stored, and as the clock's now is read
    if (!notBefore.isAfter(now)) {
      return null;
    }
    Instant latest = now.plus(maxDelay);
    if (notBefore.isAfter(latest)) {
      throw invalid(outbox, "notBefore", "notBefore " + notBefore + " lies more than " + maxDelayKey + " ("
          + Setting.formatDuration(maxDelay) + ") ahead: the latest accepted now is " + latest + ". Raise "
          + maxDelayKey + " if such delays are meant");
    }
    return TimeSource.toUtc(notBefore);
  }

  static InvalidOutboxMessageException invalid(String outbox, String field, String problem) {
    return new InvalidOutboxMessageException(field, "Outbox '" + outbox + "': " + problem + ". Nothing was written.");
  }

  /** A name as it can be shown in a message: control characters escaped, shortened. */
  static String printable(String text) {
    StringBuilder shown = new StringBuilder();
    for (int i = 0; i < text.length() && shown.length() < 80; i++) {
      char c = text.charAt(i);
      if (c < 0x20 || Character.isSurrogate(c)) {
        shown.append(String.format("\\u%04X", (int) c));
      } else {
        shown.append(c);
      }
    }
    return text.length() > 80 ? shown + "..." : shown.toString();
  }
}
