package dev.outboxer.cdi.internal.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * Outboxer's notion of now: the application's {@link Clock} bean if it has one (tests use a settable
 * clock to step past retry times instead of sleeping), the UTC system clock otherwise. Stored times
 * are UTC.
 */
@ApplicationScoped
public class TimeSource {

  @Inject Instance<Clock> clocks;

  private volatile Clock clock;

  public Clock clock() {
    Clock found = clock;
    if (found == null) {
      found = clocks.isResolvable() ? clocks.get() : Clock.systemUTC();
      clock = found;
    }
    return found;
  }

  /**
   * Now, to the microsecond: the databases store six fractional digits, and a time that is written
   * and read back must compare equal to the one computed (a retry due at t must be due at t).
   */
  public Instant now() {
    return clock().instant().truncatedTo(ChronoUnit.MICROS);
  }

  public LocalDateTime nowUtc() {
    return toUtc(now());
  }

  public static LocalDateTime toUtc(Instant instant) {
    return LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
  }

  public static Instant fromUtc(LocalDateTime time) {
    return time == null ? null : time.toInstant(ZoneOffset.UTC);
  }
}
