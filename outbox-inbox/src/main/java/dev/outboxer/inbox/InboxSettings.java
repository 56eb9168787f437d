package dev.outboxer.inbox;

import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
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
      .withDefault(null, "the @OutboxPersistence data source bean, else the JNDI name in outbox.datasource")
      .meaning("JNDI name of the JTA data source of the consumer's transaction, where the inbox tables are");

  /** {@code outbox.inbox.schema}. */
  public static final Setting<String> SCHEMA = Setting.oneOf("schema", "validate", "none").withDefault("validate")
      .meaning("`validate`: check the inbox tables at start; `none`: do not");

  /** {@code outbox.<name>.inbox.deduplicate}. */
  public static final Setting<String> DEDUPLICATE = Setting.oneOf("deduplicate", "group", "id").withDefault("group")
      .meaning("`group`: the last id per group (ungrouped messages by id); `id`: every message of the outbox by its"
          + " id, for an outbox with ordering `none` or a consumer that does not receive each group in order");

  /** The application's keys, {@code outbox.inbox.*}. */
  public static final SettingsDeclaration GLOBAL = SettingsDeclaration.of("inbox", "outbox-inbox", "outbox.inbox.",
      DATASOURCE, SCHEMA);

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
