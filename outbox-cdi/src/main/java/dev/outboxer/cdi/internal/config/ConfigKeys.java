package dev.outboxer.cdi.internal.config;

import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Setting;

/**
 * How the core spells its full keys, from the declarations in {@link CoreSettings} (which hold
 * every key's name, range, default and meaning), and the rule for outbox names, which no
 * declaration holds.
 */
public final class ConfigKeys {

  /** The prefix of every key. */
  public static final String PREFIX = "outbox.";

  /** Outbox names: used in keys, so no dots, and in the database, so bounded. */
  public static final String OUTBOX_NAME_PATTERN = "[A-Za-z0-9_-]{1,100}";

  private ConfigKeys() {}

  /**
   * @param outbox an outbox name
   * @param setting one of {@link CoreSettings#OUTBOX}'s settings
   * @return its full key: {@code outbox.orders.partitions}
   */
  public static String key(String outbox, Setting<?> setting) {
    return CoreSettings.OUTBOX.fullKey(outbox, setting.key());
  }

  /**
   * @param outbox an outbox name
   * @param key a key under the outbox's prefix, declared or not ({@code jms.destination})
   * @return {@code outbox.<outbox>.<key>}
   */
  public static String key(String outbox, String key) {
    return PREFIX + outbox + "." + key;
  }

  /**
   * @param setting one of {@link CoreSettings#GLOBAL}'s settings
   * @return its full key: {@code outbox.datasource}
   */
  public static String global(Setting<?> setting) {
    return CoreSettings.GLOBAL.fullKey(null, setting.key());
  }
}
