package dev.outboxer.spi;

/**
 * Creates the relay of each outbox that names this provider in {@code outbox.<name>.relay}.
 * Implemented by relay modules as a CDI bean (any scope); Outboxer finds every bean of this type.
 *
 * <p>At deployment, on every node, Outboxer calls {@link #validate} and {@link #constraints} for
 * each outbox of this provider: a bad setting fails the deployment even on a node that only
 * publishes. On nodes with workers it then calls {@link #create} once per outbox, shares the relay
 * between that outbox's partition workers, and {@linkplain Relay#close() closes} it at shutdown.
 */
public interface RelayProvider {

  /**
   * @return the name used in {@code outbox.<name>.relay}, for example {@code jms}; also the prefix
   *     of the provider's own keys, {@code outbox.<name>.<provider name>.*}
   */
  String name();

  /**
   * Checks the provider's settings without connecting anywhere. Reports every problem at once: the
   * first as the exception, the others {@linkplain Throwable#addSuppressed suppressed}, each naming
   * its key, the value and the fix (an unknown key should name the nearest known one).
   *
   * @param context the outbox's name, ordering and the provider's own settings
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing, unknown or invalid
   */
  default void validate(RelayContext context) {}

  /**
   * What this provider's destination cannot carry, checked at every publish.
   *
   * @param context the outbox's name, ordering and the provider's own settings (already validated)
   * @return the constraints; {@link MessageConstraints#NONE} by default
   */
  default MessageConstraints constraints(RelayContext context) {
    return MessageConstraints.NONE;
  }

  /**
   * Creates the relay of one outbox.
   *
   * @param context the outbox's name, ordering and the provider's own settings
   * @return a thread-safe relay
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing or invalid
   */
  Relay create(RelayContext context);
}
