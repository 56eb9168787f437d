package dev.outboxer;

/**
 * A configuration value that Outboxer cannot accept. Reported at deployment, which then fails: the
 * message names the key, the value, the rule it broke and how to fix it. Outboxer never falls back
 * to a default for a value it cannot read.
 */
public class OutboxConfigurationException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String key;

  /**
   * @param key the configuration key at fault, for example {@code outbox.orders.partitions}
   * @param message the full description, naming the key and the value
   */
  public OutboxConfigurationException(String key, String message) {
    super(message);
    this.key = key;
  }

  /**
   * @return the configuration key at fault
   */
  public String key() {
    return key;
  }
}
