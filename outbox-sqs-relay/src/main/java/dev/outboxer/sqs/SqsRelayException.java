package dev.outboxer.sqs;

import dev.outboxer.OutboxException;

/**
 * A send that the SQS relay could not complete. It is what the relay reports, as a record's failure
 * (SQS refused the entry, or the record can never be sent: too many attributes, too large) or as
 * the failure of a whole batch (the endpoint cannot be reached, SQS throttled the calls past the
 * SDK's retries, the queue does not exist, the credentials were refused). Its message names the
 * outbox, the record or the number of records, the queue and the key that chose it, and ends with
 * SQS's own error code and message; the SDK's exception, if any, is the cause. Outboxer stores the
 * class and message as the record's last error.
 */
public final class SqsRelayException extends OutboxException {

  private static final long serialVersionUID = 1L;

  SqsRelayException(String message) {
    super(message);
  }

  SqsRelayException(String message, Throwable cause) {
    super(message, cause);
  }
}
