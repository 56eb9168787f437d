package dev.outboxer;

/**
 * Thrown by {@link Outbox#publish} for a message that cannot be stored or could never be delivered:
 * a missing message, a blank group key or one with a NUL character, a header the destination
 * cannot carry, a payload larger than the database or the relay accepts. Nothing was written, and
 * the caller's transaction is left as it was (not marked for rollback): the caller decides.
 *
 * <p>The message names the outbox, the {@linkplain #field() field}, what is wrong with its value and
 * the limit, for example {@code Outbox 'orders': header 'x-tenant' has a null value ...}.
 */
public class InvalidOutboxMessageException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String field;

  /**
   * @param field the part of the message at fault: {@code message}, {@code groupKey}, {@code
   *     headers}, {@code header 'name'}, {@code payload} (or a path into it, such as {@code
   *     payload.body}) or {@code type}
   * @param message the full description
   */
  public InvalidOutboxMessageException(String field, String message) {
    super(message);
    this.field = field;
  }

  /**
   * @param field the part of the message at fault
   * @param message the full description
   * @param cause the underlying failure, for example the payload codec's exception
   */
  public InvalidOutboxMessageException(String field, String message, Throwable cause) {
    super(message, cause);
    this.field = field;
  }

  /**
   * @return the part of the message at fault, for example {@code groupKey} or {@code header 'x'}
   */
  public String field() {
    return field;
  }
}
