package dev.outboxer.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one parser of the duration spellings every Outboxer module accepts in its configuration:
 * {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} (a whole number, optional spaces,
 * the unit in any case) and ISO-8601 ({@code PT30S}, in any case). The core, the relays and the
 * add-ons parse with it, so that a value one module accepts is accepted by all.
 *
 * <p>What it guarantees: the same text gives the same {@link Duration} in every module, and a text
 * it refuses is refused with a sentence saying why. What it does not: the range. Zero, negative
 * ISO-8601 durations ({@code PT-5S}) and durations too long for a setting are returned as they
 * are; each key checks its own range (most refuse zero; a JMS time-to-live of {@code 0s} means
 * "never expires"). A bare number without a unit ({@code 0}, {@code 30}) is not a duration; a key
 * that gives a number a meaning of its own (the JMS relay's {@code time-to-live=0}) says so.
 */
public final class ConfigDurations {

  /** What the parser accepts, for error messages. */
  public static final String ACCEPTED =
      "a number with a unit (500ms, 30s, 5m, 2h, 1d) or an ISO-8601 duration (PT30S)";

  private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private ConfigDurations() {}

  /**
   * @param text the configured value; surrounding spaces are ignored
   * @return the duration
   * @throws IllegalArgumentException saying what is wrong: {@code "the number is too large"},
   *     {@code "not a valid ISO-8601 duration"} or {@code "expected "} + {@link #ACCEPTED}
   */
  public static Duration parse(String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    Matcher simple = SIMPLE.matcher(value);
    if (simple.matches()) {
      long amount;
      try {
        amount = Long.parseLong(simple.group(1));
      } catch (NumberFormatException tooLarge) {
        throw new IllegalArgumentException("the number is too large");
      }
      try {
        return switch (simple.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        };
      } catch (ArithmeticException tooLarge) {
        throw new IllegalArgumentException("the number is too large");
      }
    }
    if (value.startsWith("p")) {
      try {
        return Duration.parse(value.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("not a valid ISO-8601 duration");
      } catch (ArithmeticException tooLarge) {
        throw new IllegalArgumentException("the number is too large");
      }
    }
    throw new IllegalArgumentException("expected " + ACCEPTED);
  }
}
