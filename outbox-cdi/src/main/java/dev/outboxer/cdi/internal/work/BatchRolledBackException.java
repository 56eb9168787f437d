package dev.outboxer.cdi.internal.work;

/** A batch whose transaction rolled back: nothing of it was committed, its messages are delivered again. */
final class BatchRolledBackException extends Exception {

  private static final long serialVersionUID = 1L;

  BatchRolledBackException(String message) {
    super(message);
  }

  BatchRolledBackException(String message, Throwable cause) {
    super(message, cause);
  }
}
