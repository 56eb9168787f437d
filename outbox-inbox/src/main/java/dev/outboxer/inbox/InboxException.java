package dev.outboxer.inbox;

import dev.outboxer.OutboxException;

/**
 * The inbox could not decide: its tables are missing or unfit (no primary key, columns too small
 * or comparing loosely), the database failed, there is no transaction to join, or a received
 * message lacks the headers an Outboxer relay sends or holds values it never sends (the adapters
 * {@link JmsInboxMessage} and {@link KafkaInboxMessage} name the header and its value). Unchecked,
 * so that it rolls back the consumer's container-managed transaction and the broker redelivers the
 * message. An {@link InboxMessage} built directly with values an outbox never sends fails with an
 * {@link IllegalArgumentException} instead.
 */
public class InboxException extends OutboxException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, naming the outbox, the message and what to do about it
   */
  public InboxException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong, naming the outbox, the message and what to do about it
   * @param cause the underlying failure
   */
  public InboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
