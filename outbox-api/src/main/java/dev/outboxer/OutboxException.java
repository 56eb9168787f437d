package dev.outboxer;

/**
 * The base of every exception Outboxer throws. Unchecked, so that it rolls back a container-managed
 * transaction like any other system exception.
 */
public class OutboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, naming the outbox and what to do about it
   */
  public OutboxException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong, naming the outbox and what to do about it
   * @param cause the underlying failure
   */
  public OutboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
