package dev.outboxer.local;

import static dev.outboxer.local.LocalRelayProvider.HANDLER;
import static dev.outboxer.local.LocalRelayProvider.NAME;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code outbox.<name>.local.*} settings of one outbox, checked.
 *
 * @param handlerNames the bean names listed in {@code handler}, in order; empty if it is not set
 */
record LocalSettings(List<String> handlerNames) {

  static final Set<String> KEYS = Set.of(HANDLER);

  /**
   * Reads the settings, adding a problem (naming key, value and fix) for each one it cannot accept.
   */
  static LocalSettings read(RelayContext configured, List<OutboxConfigurationException> problems) {
    // Keys set as environment variables (OUTBOX_<NAME>_LOCAL_HANDLER) renamed to the keys they stand for.
    RelayContext context = configured.withKeys(KEYS);
    for (String key : new TreeSet<>(context.properties().keySet())) {
      if (!KEYS.contains(key)) {
        String written = context.writtenKey(NAME, key);
        problems.add(new OutboxConfigurationException(context.fullKey(NAME, key), written
            + " is not a setting of the local relay."
            + ConfigKeyNames.didYouMean(written, KEYS.stream().map(known -> context.fullKey(NAME, known)).toList())
            + " Known keys under outbox." + context.outbox() + ".local.: " + new TreeSet<>(KEYS) + "."));
      }
    }
    List<String> names = new ArrayList<>();
    context.property(HANDLER).ifPresent(value -> {
      for (String name : value.split(",")) {
        String trimmed = name.strip();
        if (trimmed.isEmpty()) {
          String fullKey = context.fullKey(NAME, HANDLER);
          problems.add(new OutboxConfigurationException(fullKey, fullKey + "=" + value + " has an empty bean name:"
              + " list the @Named names of handler beans, separated by commas"));
        } else if (!names.contains(trimmed)) {
          names.add(trimmed);
        }
      }
    });
    return new LocalSettings(List.copyOf(names));
  }
}
