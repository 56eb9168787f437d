package dev.outboxer.cdi.internal.config;

import java.util.Locale;
import java.util.Optional;

/** Where the partition workers of this node run, from {@code outbox.worker}. */
public enum WorkerMode {
  /** A ManagedScheduledExecutorService (JNDI), or a plain thread pool in Java SE. */
  EXECUTOR,
  /** The EJB timer service, through a singleton start-up bean. */
  EJB_TIMER,
  /** No workers on this node: it only publishes. */
  NONE;

  public String configValue() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static Optional<WorkerMode> fromConfig(String value) {
    for (WorkerMode mode : values()) {
      if (mode.configValue().equals(value.trim().toLowerCase(Locale.ROOT))) {
        return Optional.of(mode);
      }
    }
    return Optional.empty();
  }
}
