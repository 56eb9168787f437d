package dev.outboxer;

/**
 * Thrown by {@link Outbox#publish} when no JTA transaction is active (or the active one is already
 * marked for rollback or completing). Nothing was written. Publish from an EJB business method, a
 * {@code @Transactional} CDI method, or between {@code UserTransaction.begin()} and {@code
 * commit()}.
 */
public class OutboxTransactionRequiredException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String outbox;

  /**
   * @param outbox the outbox the message was meant for
   * @param message the full description
   */
  public OutboxTransactionRequiredException(String outbox, String message) {
    super(message);
    this.outbox = outbox;
  }

  /**
   * @return the outbox the message was meant for
   */
  public String outbox() {
    return outbox;
  }
}
