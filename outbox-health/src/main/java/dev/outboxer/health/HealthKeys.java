package dev.outboxer.health;

import java.time.Duration;
import java.util.Set;

/** Every configuration key outbox-health reads, declared once, with its default. */
final class HealthKeys {

  /** The key space of this module: {@code outbox.health.*} and {@code outbox.<name>.health.*}. */
  static final String SPACE = "health";

  static final String WORKER_STALL = "outbox.health.worker-stall";
  static final String REFRESH_INTERVAL = "outbox.health.refresh-interval";
  /** Per outbox: {@code outbox.<name>.health.max-lag}. */
  static final String MAX_LAG = "health.max-lag";

  static final Set<String> GLOBAL_KEYS = Set.of(WORKER_STALL, REFRESH_INTERVAL);
  static final Set<String> OUTBOX_KEYS = Set.of(MAX_LAG);

  /** The stall time when nothing in the outboxes' own timing asks for more. */
  static final Duration DEFAULT_WORKER_STALL = Duration.ofSeconds(60);
  /** Added to an outbox's longest healthy quiet time when the default stall time has to be raised. */
  static final Duration STALL_MARGIN = Duration.ofSeconds(10);
  static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(5);
  static final Duration MAX_DURATION = Duration.ofDays(365);

  // The core's keys this module reads, to know how long a healthy worker can go without running.
  static final String RELAY = "relay";
  static final String RELAY_TIMEOUT = "relay-timeout";
  static final String POLL_INTERVAL = "poll-interval";
  static final String MAX_POLL_INTERVAL = "max-poll-interval";
  static final Duration CORE_DEFAULT_RELAY_TIMEOUT = Duration.ofSeconds(30);
  static final Duration CORE_DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);
  static final Duration CORE_DEFAULT_MAX_POLL_INTERVAL = Duration.ofSeconds(5);

  private HealthKeys() {}

  static String outboxKey(String outbox, String key) {
    return "outbox." + outbox + "." + key;
  }
}
