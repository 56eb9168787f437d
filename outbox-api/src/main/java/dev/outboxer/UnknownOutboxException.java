package dev.outboxer;

/**
 * Thrown when a message is published to, or an admin operation names, an outbox that is not
 * configured (no {@code outbox.<name>.relay} key), or when a message type without {@link Outboxed}
 * is published without naming an outbox. Nothing was written.
 */
public class UnknownOutboxException extends OutboxException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message the full description, naming the outbox or the message type
   */
  public UnknownOutboxException(String message) {
    super(message);
  }
}
