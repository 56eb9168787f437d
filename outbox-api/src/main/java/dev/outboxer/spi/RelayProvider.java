package dev.outboxer.spi;

/**
 * Creates the relay of each outbox that names this provider in {@code outbox.<name>.relay}.
 * Implemented by relay modules as a CDI bean (any scope); Outboxer finds every bean of this type.
 *
 * <p>Outboxer calls {@link #create} once per outbox at start-up, shares the relay between that
 * outbox's partition workers, and {@linkplain Relay#close() closes} it at shutdown. A provider
 * should validate its settings in {@code create} and throw {@link
 * dev.outboxer.OutboxConfigurationException} naming the key: the deployment then fails.
 */
public interface RelayProvider {

  /**
   * @return the name used in {@code outbox.<name>.relay}, for example {@code jms}; also the prefix
   *     of the provider's own keys, {@code outbox.<name>.<provider name>.*}
   */
  String name();

  /**
   * Creates the relay of one outbox.
   *
   * @param context the outbox's name, ordering and the provider's own settings
   * @return a thread-safe relay
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing or invalid
   */
  Relay create(RelayContext context);
}
