package dev.outboxer.spi;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a {@link RelayProvider} needs to know to create the relay of one outbox.
 *
 * @param outbox the outbox name
 * @param ordering the outbox's ordering mode
 * @param partitions the number of partitions, hence of workers that may call the relay at once
 * @param relayTimeout how long a worker waits for one batch ({@code outbox.<name>.relay-timeout});
 *     a relay's own send timeouts should stay below it
 * @param properties the provider's settings: every key {@code outbox.<name>.<provider>.<key>},
 *     with the prefix removed, as read from MicroProfile Config; unmodifiable. A key set as an
 *     environment variable keeps its environment spelling after the prefix ({@code
 *     OUTBOX_ORDERS_JMS_CONNECTION_FACTORY} gives {@code CONNECTION_FACTORY}, and SmallRye Config
 *     may add the twin {@code connection.factory}): {@link #property} finds it by the provider's
 *     key, and {@link #withKeys} renames it to that key
 */
public record RelayContext(
    String outbox,
    Ordering ordering,
    int partitions,
    Duration relayTimeout,
    Map<String, String> properties) {

  /** Copies the properties so that the context stays immutable. */
  public RelayContext {
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(ordering, "ordering");
    Objects.requireNonNull(relayTimeout, "relayTimeout");
    properties = Map.copyOf(properties);
  }

  /**
   * @param key a provider key without prefix, for example {@code destination}
   * @return the value, if set and not blank; a key set as an environment variable ({@code
   *     OUTBOX_ORDERS_JMS_DESTINATION}, in {@link #properties()} as {@code DESTINATION}) is found
   *     by its own name too, the key spelt as given winning (see {@link ConfigKeyNames})
   */
  public Optional<String> property(String key) {
    String value = properties.get(key);
    if (value == null) {
      value = ConfigKeyNames.canonicalProperties(properties, Set.of(key)).get(key);
    }
    return Optional.ofNullable(value).filter(found -> !found.isBlank());
  }

  /**
   * This context with its properties keyed by the provider's own keys: keys set as environment
   * variables renamed to the known key they stand for, unknown keys kept (see {@link
   * ConfigKeyNames#canonicalProperties}). A provider calls it before it checks for unknown keys.
   *
   * @param knownKeys the provider's keys, without prefix
   * @return a context with the renamed properties
   */
  public RelayContext withKeys(Collection<String> knownKeys) {
    return new RelayContext(outbox, ordering, partitions, relayTimeout,
        ConfigKeyNames.canonicalProperties(properties, knownKeys));
  }

  /**
   * The provider's settings, typed and checked: environment spellings renamed to the declared
   * keys, every unknown key already recorded as a problem (see {@link SettingsReader}).
   *
   * @param declaration the provider's keys, with the prefix {@code outbox.<name>.<provider>.}
   * @return a reader of this context's properties
   */
  public SettingsReader settings(SettingsDeclaration declaration) {
    return SettingsReader.forRelay(this, declaration);
  }

  /**
   * @param provider the provider name, for example {@code jms}
   * @param key a provider key without prefix, as in {@link #properties()}
   * @return the full key as the user wrote it, for messages: {@code OUTBOX_ORDERS_JMS_DESTINATON}
   *     for a key set as an environment variable, else {@link #fullKey}
   */
  public String writtenKey(String provider, String key) {
    return ConfigKeyNames.written(fullKey(provider, key), key);
  }

  /**
   * @param provider the provider name, for example {@code jms}
   * @param key a provider key without prefix
   * @return the full configuration key, {@code outbox.<name>.<provider>.<key>}, for error messages
   */
  public String fullKey(String provider, String key) {
    return "outbox." + outbox + "." + provider + "." + key;
  }

  /**
   * @param provider the provider name
   * @param key a provider key without prefix
   * @return the value
   * @throws OutboxConfigurationException naming the full key if it is not set
   */
  public String requiredProperty(String provider, String key) {
    return property(key)
        .orElseThrow(
            () ->
                new OutboxConfigurationException(
                    fullKey(provider, key),
                    fullKey(provider, key) + " is not set: the " + provider + " relay of outbox '"
                        + outbox + "' needs it"));
  }
}
