package dev.outboxer.health;

import dev.outboxer.spi.ConfigDurations;
import java.time.Duration;

/**
 * The duration spellings Outboxer's configuration accepts everywhere ({@code 500ms}, {@code 30s},
 * {@code 5m}, {@code 2h}, {@code 1d}, ISO-8601 such as {@code PT30S}), parsed by the SPI's {@link
 * ConfigDurations} as every module parses them, and formatted for this module's messages.
 */
final class DurationText {

  static final String ACCEPTED = ConfigDurations.ACCEPTED;

  private DurationText() {}

  /**
   * @throws IllegalArgumentException saying what is wrong with the text
   */
  static Duration parse(String text) {
    return ConfigDurations.parse(text);
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
