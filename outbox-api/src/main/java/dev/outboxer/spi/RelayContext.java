package dev.outboxer.spi;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link RelayProvider} needs to know to create the relay of one outbox.
 *
 * @param outbox the outbox name
 * @param ordering the outbox's ordering mode
 * @param partitions the number of partitions, hence of workers that may call the relay at once
 * @param relayTimeout how long a worker waits for one batch ({@code outbox.<name>.relay-timeout});
 *     a relay's own send timeouts should stay below it
 * @param properties the provider's settings: every key {@code outbox.<name>.<provider>.<key>},
 *     with the prefix removed, as read from MicroProfile Config; unmodifiable
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
   * @return the value, if set and not blank
   */
  public Optional<String> property(String key) {
    return Optional.ofNullable(properties.get(key)).filter(value -> !value.isBlank());
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
