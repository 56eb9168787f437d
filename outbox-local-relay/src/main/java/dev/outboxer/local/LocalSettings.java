package dev.outboxer.local;

import static dev.outboxer.local.LocalRelayProvider.HANDLER;
import static dev.outboxer.local.LocalRelayProvider.NAME;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsDeclaration;
import dev.outboxer.spi.SettingsReader;
import java.util.List;

/**
 * The {@code outbox.<name>.local.*} settings of one outbox, declared here once (listed for the
 * reference by {@link LocalSettingsCatalog}) and read with the SPI's {@link SettingsReader}.
 *
 * @param handlerNames the bean names listed in {@code handler}, in order, each once; empty if it is not set
 */
record LocalSettings(List<String> handlerNames) {

  /** {@code outbox.<name>.local.handler}. */
  static final Setting<List<String>> HANDLER_SETTING = Setting.list(HANDLER)
      .withDefault(List.of(), "none")
      .meaning("`@Named` names of handler beans for this outbox: an `OutboxHandler` takes every type of the outbox"
          + " (unless its `@HandlesOutbox` names one), an `OutboxMessageHandler` its message class's type. Not needed"
          + " for handlers selected by `@HandlesOutbox` or by their message class's `@Outboxed`");

  /** Every {@code outbox.<name>.local.*} key: any other is refused, naming the nearest known one. */
  static final SettingsDeclaration DECLARATION = SettingsDeclaration.of(NAME + " relay", "outbox-local-relay",
          "outbox." + ConfigKeyNames.NAME + "." + NAME + ".", HANDLER_SETTING)
      .appliesWhen("outbox." + ConfigKeyNames.NAME + ".relay=" + NAME);

  /**
   * Reads the settings, adding a problem (naming key, value and fix) for each one it cannot accept:
   * an unknown key (with the nearest known one), an empty element in the handler list.
   */
  static LocalSettings read(RelayContext context, List<OutboxConfigurationException> problems) {
    SettingsReader reader = context.settings(DECLARATION);
    List<String> names = reader.get(HANDLER_SETTING).stream().distinct().toList();
    problems.addAll(reader.problems());
    return new LocalSettings(names);
  }
}
