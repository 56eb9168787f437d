package dev.outboxer.rabbitmq;

import dev.outboxer.OutboxException;

/**
 * A send that the RabbitMQ relay could not complete. It is what the relay reports, as a record's
 * failure (the broker returned it as unroutable, refused it with a nack, did not confirm it in
 * time, closed the channel before confirming it, or the record can never be sent: too large, a
 * name longer than AMQP allows) or as the failure of a whole batch (the broker cannot be reached,
 * refused the credentials, the exchange does not exist, the connection was lost). Its message names
 * the outbox, the record or the broker address, the exchange and the key that chose it, and ends
 * with the broker's own reply when there is one; the client's exception, if any, is the cause.
 * Outboxer stores the class and message as the record's last error.
 */
public final class RabbitRelayException extends OutboxException {

  private static final long serialVersionUID = 1L;

  RabbitRelayException(String message) {
    super(message);
  }

  RabbitRelayException(String message, Throwable cause) {
    super(message, cause);
  }
}
