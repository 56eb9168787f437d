package dev.outboxer;

import java.time.Duration;
import java.util.Objects;

/**
 * A snapshot of an outbox's backlog.
 *
 * @param pending messages waiting to be relayed, including those {@code retrying}; an outbox has
 *     drained when this is zero
 * @param retrying pending messages that failed at least once and are not dead
 * @param dead messages that used up {@code max-attempts}; they stay until {@linkplain
 *     OutboxAdmin#retryDead revived} or {@linkplain OutboxAdmin#discard discarded}
 * @param oldestPendingAge how long the oldest pending message has waited since it was published
 *     (a delayed message not tried yet: since its {@linkplain OutboxMessage#notBefore() time}, and
 *     not at all before it); {@link Duration#ZERO} when nothing is pending. This is the outbox's lag.
 */
public record OutboxCounts(long pending, long retrying, long dead, Duration oldestPendingAge) {

  /** Checks the invariants: counts are not negative, and retrying is a part of pending. */
  public OutboxCounts {
    if (pending < 0 || retrying < 0 || dead < 0 || retrying > pending) {
      throw new IllegalArgumentException(
          "Counts must not be negative and retrying must not exceed pending: pending="
              + pending + ", retrying=" + retrying + ", dead=" + dead);
    }
    Objects.requireNonNull(oldestPendingAge, "oldestPendingAge");
  }
}
