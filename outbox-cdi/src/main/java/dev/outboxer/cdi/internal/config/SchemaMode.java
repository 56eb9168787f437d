package dev.outboxer.cdi.internal.config;

import java.util.Locale;
import java.util.Optional;

/** What Outboxer does with its tables at start-up, from {@code outbox.schema}. */
public enum SchemaMode {
  /** Check that every table, column, sequence and index is there; fail the deployment naming what is missing. */
  VALIDATE,
  /** Create the schema if it is missing entirely (development and demos), then validate. */
  CREATE,
  /** Do nothing: the schema is managed elsewhere and trusted. */
  NONE;

  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Optional<SchemaMode> fromConfig(String value) {
    for (SchemaMode mode : values()) {
      if (mode.configValue().equals(value.trim().toLowerCase(Locale.ROOT))) {
        return Optional.of(mode);
      }
    }
    return Optional.empty();
  }
}
