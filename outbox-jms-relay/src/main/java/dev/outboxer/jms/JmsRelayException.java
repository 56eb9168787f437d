package dev.outboxer.jms;

import dev.outboxer.OutboxException;

/**
 * A send that the JMS relay could not complete. It is what the relay reports, as a record's failure
 * (a destination that does not exist, a message the broker refused) or as the failure of the whole
 * batch (no connection, a broken session, the relay timeout passed). Its message names the outbox,
 * the record and the destination or connection factory, and ends with the JMS provider's own
 * message; the provider's exception is the cause. Outboxer stores the class and message as the
 * record's last error.
 */
public final class JmsRelayException extends OutboxException {

  private static final long serialVersionUID = 1L;

  JmsRelayException(String message) {
    super(message);
  }

  JmsRelayException(String message, Throwable cause) {
    super(message, cause);
  }
}
