package dev.outboxer.health;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The duration spellings Outboxer's configuration accepts everywhere ({@code 500ms}, {@code 30s},
 * {@code 5m}, {@code 2h}, {@code 1d}, ISO-8601 such as {@code PT30S}), parsed here as the core
 * parses them: the core's parser is internal, and this module depends on the API only.
 */
final class DurationText {

  static final String ACCEPTED = "a number with a unit (500ms, 30s, 5m, 2h, 1d) or an ISO-8601 duration (PT30S)";

  private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private DurationText() {}

  /**
   * @throws IllegalArgumentException saying what is wrong with the text
   */
  static Duration parse(String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    Matcher simple = SIMPLE.matcher(value);
    try {
      if (simple.matches()) {
        long amount = Long.parseLong(simple.group(1));
        return switch (simple.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        };
      }
      if (value.startsWith("p")) {
        return Duration.parse(value.toUpperCase(Locale.ROOT));
      }
    } catch (NumberFormatException | ArithmeticException tooLarge) {
      throw new IllegalArgumentException("the number is too large");
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("it is not a valid ISO-8601 duration");
    }
    throw new IllegalArgumentException("it is not " + ACCEPTED);
  }

  /** Formats a duration the way users write it, for messages and health data. */
  static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 1000 != 0) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    if (seconds % 60 != 0 || seconds == 0) {
      return seconds + "s";
    }
    return seconds % 3600 == 0 ? seconds / 3600 + "h" : seconds / 60 + "m";
  }
}
