package dev.outboxer.cdi.internal.config;

import java.time.Duration;

/**
 * Arithmetic on configured delays. Durations are parsed and formatted by the SPI's {@link
 * dev.outboxer.spi.Setting} (with {@link dev.outboxer.spi.ConfigDurations}), the rules every module shares.
 */
public final class Durations {

  private Durations() {}

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
}
