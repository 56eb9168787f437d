package dev.outboxer.cdi.internal.config;

import dev.outboxer.spi.ConfigDurations;
import java.time.Duration;

/**
 * Parses the duration spellings the configuration accepts: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code
 * 1d}, ISO-8601, with the SPI's {@link ConfigDurations}, the parser every module shares.
 */
public final class Durations {

  private Durations() {}

  /**
   * @param text the configured value
   * @return the duration
   * @throws IllegalArgumentException with a description of the accepted forms
   */
  public static Duration parse(String text) {
    return ConfigDurations.parse(text);
  }

  /**
   * The {@code step}-th of a series that starts at {@code min} and doubles up to {@code max}: step
   * 1 is {@code min}, step 2 twice that, and so on, never more than {@code max}. Used for retry
   * backoff and for idle polling.
   */
  public static Duration doubling(Duration min, Duration max, long step) {
    long first = min.toMillis();
    long last = max.toMillis();
    long doublings = Math.max(0, step - 1);
    // Past 62 doublings the shift overflows; any such delay is capped anyway.
    if (doublings >= 62 || first > (last >> doublings)) {
      return max;
    }
    return Duration.ofMillis(Math.min(last, first << doublings));
  }

  /** Formats a duration the way users write it, for messages. */
  public static String format(Duration duration) {
    if (duration.compareTo(Duration.ofDays(365L * 1000)) > 0) {
      return duration.toDays() + "d";
    }
    long millis = duration.toMillis();
    if (millis % 1000 != 0) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    if (seconds % 60 != 0) {
      return seconds + "s";
    }
    return seconds % 3600 == 0 ? seconds / 3600 + "h" : seconds / 60 + "m";
  }
}
