package dev.outboxer.health;

import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.time.Duration;
import java.util.List;

/**
 * outbox-health's configuration keys, declared once: the global {@code outbox.health.*} and, per
 * outbox, {@code outbox.<name>.health.*}. Listed for the configuration reference through {@link
 * java.util.ServiceLoader} ({@code META-INF/services/dev.outboxer.spi.SettingsCatalog}).
 *
 * <p>What it guarantees: the checks read exactly these keys, with a {@link
 * dev.outboxer.spi.SettingsReader} of these declarations, so any other key under the two prefixes
 * is refused at deployment naming the nearest known one. What it does not declare: the core's
 * keys it reads to derive the stall time ({@code relay-timeout}, {@code poll-interval}, {@code
 * max-poll-interval}); it reads those with their declarations in {@link CoreSettings}, defaults
 * included.
 */
public final class HealthSettingsCatalog implements SettingsCatalog {

  /** The key space of this module: {@code outbox.health.*} and {@code outbox.<name>.health.*}; no outbox may be named so. */
  static final String SPACE = "health";

  /** {@code outbox.health.worker-stall}. */
  static final Setting<Duration> WORKER_STALL = Setting.duration("worker-stall", CoreSettings.MAX_DURATION)
      .withDefault(Duration.ofSeconds(60), "60s, raised per outbox to its relay-timeout + max-poll-interval + 10s"
          + " where that is longer")
      .meaning("how long a worker may go without starting or ending a run while messages wait before"
          + " `outbox-workers` is DOWN; a configured value must exceed `relay-timeout` + `max-poll-interval` of every"
          + " outbox (the longest a healthy worker goes quiet)");
  /** {@code outbox.health.refresh-interval}. */
  static final Setting<Duration> REFRESH_INTERVAL = Setting.duration("refresh-interval", CoreSettings.MAX_DURATION)
      .withDefault(Duration.ofSeconds(5))
      .meaning("how long the checks reuse a backlog read from the database");
  /** {@code outbox.health.long-transaction}. */
  static final Setting<Duration> LONG_TRANSACTION = Setting.duration("long-transaction", CoreSettings.MAX_DURATION)
      .withDefault(Duration.ofSeconds(60))
      .meaning("how long a transaction on another session of the database (PostgreSQL) may be open before"
          + " `outbox-long-transaction` names it in a warning; the check stays UP");
  /** {@code outbox.<name>.health.max-lag}. */
  static final Setting<Duration> MAX_LAG = Setting.duration("max-lag", CoreSettings.MAX_DURATION)
      .withDefault(null, "none: lag never makes the node DOWN")
      .meaning("the oldest pending age above which `outbox-lag` is DOWN");

  /** The global keys, {@code outbox.health.*}. */
  static final SettingsDeclaration GLOBAL = SettingsDeclaration.of("health checks", "outbox-health",
      "outbox." + SPACE + ".", WORKER_STALL, REFRESH_INTERVAL, LONG_TRANSACTION);
  /** Every outbox's keys, {@code outbox.<name>.health.*}. */
  static final SettingsDeclaration OUTBOX = SettingsDeclaration.of("health checks", "outbox-health",
      "outbox." + ConfigKeyNames.NAME + "." + SPACE + ".", MAX_LAG);

  /** For {@link java.util.ServiceLoader}: the catalog of outbox-health's keys. */
  public HealthSettingsCatalog() {}

  /** @return the global declaration, then the per-outbox one */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(GLOBAL, OUTBOX);
  }
}
