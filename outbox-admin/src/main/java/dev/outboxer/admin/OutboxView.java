package dev.outboxer.admin;

import dev.outboxer.OutboxCounts;
import jakarta.json.bind.annotation.JsonbNillable;
import java.time.Duration;
import java.util.Optional;

/**
 * The JSON answer for one outbox: its counts and lag, as {@link dev.outboxer.OutboxAdmin#counts}
 * gives them.
 *
 * @param name the outbox
 * @param pending messages waiting to be relayed, those waiting for a retry included
 * @param retrying pending messages that failed at least once
 * @param dead messages that used up their attempts
 * @param lagMillis how long the oldest pending message has waited, 0 when none is pending
 * @param deadRetentionMillis how long a dead message is kept after it died ({@code
 *     outbox.<name>.dead-retention}), null when dead messages stay until retried or discarded
 */
@JsonbNillable
public record OutboxView(String name, long pending, long retrying, long dead, long lagMillis,
    Long deadRetentionMillis) {

  static OutboxView of(String name, OutboxCounts counts, Optional<Duration> deadRetention) {
    return new OutboxView(name, counts.pending(), counts.retrying(), counts.dead(),
        counts.oldestPendingAge().toMillis(), deadRetention.map(Duration::toMillis).orElse(null));
  }
}
