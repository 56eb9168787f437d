package dev.outboxer.sqs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Amazon SQS's own rules, as its API reference states them (SendMessage, message attributes,
 * queue names), in one place.
 */
final class SqsRules {

  /** At most 10 message attributes per message. */
  static final int MAX_ATTRIBUTES = 10;

  /** Attribute names are at most 256 characters. */
  static final int MAX_ATTRIBUTE_NAME_LENGTH = 256;

  /** MessageGroupId and MessageDeduplicationId are at most 128 characters. */
  static final int MAX_FIFO_ID_LENGTH = 128;

  /** The smallest and largest maximum message size a queue can have. */
  static final int MIN_MESSAGE_SIZE_LIMIT = 1_024;
  static final int MAX_MESSAGE_SIZE_LIMIT = 1_048_576;

  /** SendMessageBatch takes 1 to 10 entries. */
  static final int MAX_BATCH_ENTRIES = 10;

  /** The data types the relay uses; their names count towards the message size. */
  static final String STRING = "String";
  static final String NUMBER = "Number";

  // Queue names: 1 to 80 of letters, digits, '-' and '_', FIFO ones ending in ".fifo" (counted).
  private static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,75}(\\.fifo)?|[A-Za-z0-9_-]{76,80}");

  // MessageGroupId / MessageDeduplicationId: letters, digits and punctuation, i.e. printable ASCII
  // without the space.
  private static final Pattern FIFO_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[A-Za-z0-9_.-]+");

  private SqsRules() {}

  static boolean isQueueName(String name) {
    return QUEUE_NAME.matcher(name).matches();
  }

  static boolean isFifoQueueName(String name) {
    return name.endsWith(".fifo");
  }

  static boolean isFifoId(String id) {
    return FIFO_ID.matcher(id).matches();
  }

  /**
   * The MessageGroupId of a group key: the key itself when SQS accepts it, else {@code sha256-}
   * and the hex SHA-256 of its UTF-8 bytes. Stable across JVMs and releases: a re-sent message
   * lands in the same SQS group, and equal keys always share one.
   */
  static String groupIdOf(String groupKey) {
    if (isFifoId(groupKey)) {
      return groupKey;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(groupKey.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every Java platform has SHA-256. Indicates a bug.", e);
    }
  }

  /**
   * @return {@code null} if SQS accepts the name for a message attribute, else why not (completing
   *     "header 'x' ...")
   */
  static String checkAttributeName(String name) {
    if (name.isEmpty() || name.length() > MAX_ATTRIBUTE_NAME_LENGTH) {
      return "is not a valid SQS message attribute name: it must have 1 to "
          + MAX_ATTRIBUTE_NAME_LENGTH + " characters";
    }
    if (!ATTRIBUTE_NAME.matcher(name).matches()) {
      return "is not a valid SQS message attribute name: only letters, digits, '-', '_' and '.'"
          + " are allowed";
    }
    if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      return "is not a valid SQS message attribute name: it may not start or end with '.' nor"
          + " contain '..'";
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.startsWith("aws.") || lower.startsWith("amazon.")) {
      return "is not a valid SQS message attribute name: names starting with 'AWS.' or 'Amazon.'"
          + " (any case) are reserved by AWS";
    }
    return null;
  }

  /**
   * @return {@code null} if SQS accepts the text as a String attribute value, else why not
   *     (completing "header 'x' ...")
   */
  static String checkAttributeValue(String value) {
    if (value.isEmpty()) {
      return "has an empty value, which SQS refuses for a message attribute";
    }
    int bad = firstInvalidCharacter(value);
    if (bad >= 0) {
      return "has the character U+" + String.format("%04X", bad) + " in its value, which SQS"
          + " refuses (allowed: tab, line feed, carriage return and U+0020 to U+10FFFF except"
          + " U+D800 to U+DFFF, U+FFFE and U+FFFF)";
    }
    return null;
  }

  /**
   * @return the first code point SQS refuses in a message body or attribute value, or -1; SQS
   *     accepts #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF (the characters of
   *     XML 1.0)
   */
  static int firstInvalidCharacter(String text) {
    for (int i = 0; i < text.length(); ) {
      int codePoint = text.codePointAt(i);
      boolean valid = codePoint == 0x9 || codePoint == 0xA || codePoint == 0xD
          || (codePoint >= 0x20 && codePoint <= 0xD7FF)
          || (codePoint >= 0xE000 && codePoint <= 0xFFFD)
          || (codePoint >= 0x10000 && codePoint <= 0x10FFFF);
      if (!valid) {
        return codePoint;
      }
      i += Character.charCount(codePoint);
    }
    return -1;
  }

  /** What one attribute adds to the message size: its name, its data type and its value. */
  static long attributeSize(String name, String dataType, String value) {
    return utf8Length(name) + dataType.length() + utf8Length(value);
  }

  static long utf8Length(String text) {
    long length = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        length += 1;
      } else if (c < 0x800) {
        length += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        length += 4;
        i++;
      } else {
        length += 3;
      }
    }
    return length;
  }
}
