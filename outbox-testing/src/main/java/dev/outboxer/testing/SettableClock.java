package dev.outboxer.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock tests can step instead of sleeping. It ticks with the system clock plus an offset that
 * {@link #advance} moves forward, or stands still after {@link #freeze}. Outboxer reads time from
 * the application's {@link Clock} bean: retry times, message ages, partition claims.
 *
 * <p>Thread-safe. Its zone is UTC ({@link #withZone} is not supported). {@link #advance} with a
 * negative duration moves it back, which Outboxer does not expect of time: a claim or retry time
 * stamped earlier then lies in the future.
 */
public final class SettableClock extends Clock {

  private volatile Duration offset = Duration.ZERO;
  private volatile Instant frozenAt;

  @Override
  public Instant instant() {
    Instant frozen = frozenAt;
    return frozen != null ? frozen : Instant.now().plus(offset);
  }

  /** Moves the clock forward, frozen or not. */
  public synchronized void advance(Duration duration) {
    if (frozenAt != null) {
      frozenAt = frozenAt.plus(duration);
    } else {
      offset = offset.plus(duration);
    }
  }

  /** Stops the clock at its current time. */
  public synchronized Instant freeze() {
    frozenAt = instant();
    return frozenAt;
  }

  /** Makes the clock tick again from where it stands. */
  public synchronized void unfreeze() {
    if (frozenAt != null) {
      offset = Duration.between(Instant.now(), frozenAt);
      frozenAt = null;
    }
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("Outboxer works in UTC");
  }
}
