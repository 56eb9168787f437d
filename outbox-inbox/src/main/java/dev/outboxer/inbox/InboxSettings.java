package dev.outboxer.inbox;

import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.time.Duration;
import java.util.List;

/**
 * The inbox's configuration keys, declared once: {@code outbox.inbox.*} for the whole application
 * and {@code outbox.<name>.inbox.*} per outbox. {@link InboxProducer} reads them with a {@link
 * dev.outboxer.spi.SettingsReader}, which refuses any other key under these prefixes; the
 * configuration reference is generated from the same declarations (this class is registered in
 * {@code META-INF/services/dev.outboxer.spi.SettingsCatalog}).
 */
public final class InboxSettings implements SettingsCatalog {

  /** {@code outbox.inbox.datasource}. */
  public static final Setting<String> DATASOURCE = Setting.jndiName("datasource")
      .withDefault(null, "the @OutboxPersistence data source bean, else the JNDI name in outbox.datasource, else"
          + " the @Default DataSource bean (in Quarkus: the default data source)")
      .meaning("JNDI name of the JTA data source of the consumer's transaction, where the inbox tables are");

  /** {@code outbox.inbox.schema}. */
  public static final Setting<String> SCHEMA = Setting.oneOf("schema", "validate", "none").withDefault("validate")
      .meaning("`validate`: check the inbox tables at start; `none`: do not");

  /** {@code outbox.inbox.retention}: unset, accepted ids stay until {@link Inbox#purge}. */
  public static final Setting<Duration> RETENTION = Setting.duration("retention", Duration.ofDays(3650))
      .withDefault(null, "off: accepted ids stay until Inbox.purge")
      .meaning("ids accepted longer ago than this (`processed_at`) are forgotten on the `retention-interval`"
          + " schedule, by one node at a time, `retention-chunk-size` rows a transaction; a copy of a forgotten"
          + " message is accepted again, so keep it well above the longest a broker redelivers");

  /** {@code outbox.inbox.retention-interval}. */
  public static final Setting<Duration> RETENTION_INTERVAL = Setting.duration("retention-interval",
      Duration.ofSeconds(1), CoreSettings.MAX_DURATION).withDefault(Duration.ofHours(1))
      .meaning("how often a node runs the inbox's `retention`; the first run comes at start");

  /** {@code outbox.inbox.retention-chunk-size}. */
  public static final Setting<Integer> RETENTION_CHUNK_SIZE = Setting.integer("retention-chunk-size", 1, 10_000)
      .withDefault(1_000).meaning("rows the inbox's `retention` removes per transaction");

  /** {@code outbox.<name>.inbox.deduplicate}. */
  public static final Setting<String> DEDUPLICATE = Setting.oneOf("deduplicate", "group", "id").withDefault("group")
      .meaning("`group`: the last id per group (ungrouped messages by id); `id`: every message of the outbox by its"
          + " id, for an outbox with ordering `none` or a consumer that does not receive each group in order");

  /** The application's keys, {@code outbox.inbox.*}. */
  public static final SettingsDeclaration GLOBAL = SettingsDeclaration.of("inbox", "outbox-inbox", "outbox.inbox.",
      DATASOURCE, SCHEMA, RETENTION, RETENTION_INTERVAL, RETENTION_CHUNK_SIZE);

  /** Every outbox's keys for the inbox, {@code outbox.<name>.inbox.*}. */
  public static final SettingsDeclaration PER_OUTBOX = SettingsDeclaration.of("inbox", "outbox-inbox",
      "outbox." + ConfigKeyNames.NAME + ".inbox.", DEDUPLICATE);

  /** For {@link java.util.ServiceLoader}: the catalog of the inbox's keys. */
  public InboxSettings() {}

  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(GLOBAL, PER_OUTBOX);
  }
}
