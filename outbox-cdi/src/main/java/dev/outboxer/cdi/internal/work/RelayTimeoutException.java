package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxException;

/** Recorded as the failure of the records a relay did not report before the batch deadline. */
final class RelayTimeoutException extends OutboxException {
  private static final long serialVersionUID = 1L;

  RelayTimeoutException(String message, Throwable thrown) {
    super(message, thrown);
  }
}
