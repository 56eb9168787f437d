package dev.outboxer.local;

import dev.outboxer.OutboxException;

/**
 * Why the local relay failed a message without its handler having thrown: no handler takes the
 * message's type, its payload cannot be decoded, or the handler returned normally but left the
 * worker's transaction marked for rollback. Stored as the message's last error (shown by {@link
 * dev.outboxer.OutboxAdmin#dead}); the message counts a failed attempt like any other failure.
 * A handler's own exception is stored as it is, not wrapped in this one.
 */
public class LocalRelayException extends OutboxException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed, naming the outbox, the message id and type, and the fix
   * @param cause the underlying failure, or {@code null}
   */
  public LocalRelayException(String message, Throwable cause) {
    super(message, cause);
  }
}
