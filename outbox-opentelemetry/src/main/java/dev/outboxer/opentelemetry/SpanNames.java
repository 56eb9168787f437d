package dev.outboxer.opentelemetry;

/**
 * The relay span's name and attributes. The {@code messaging.*} attributes follow the OpenTelemetry
 * messaging semantic conventions (a PRODUCER span, operation type {@code send}, named {@code
 * <operation> <destination>}), with the outbox as the destination: that is what the application
 * published to; the broker destination is the relay's business. The {@code outboxer.*} attributes
 * are Outboxer's own.
 */
final class SpanNames {

  static final String OPERATION = "publish";

  static final String MESSAGING_SYSTEM = "messaging.system";
  static final String MESSAGING_OPERATION_TYPE = "messaging.operation.type";
  static final String MESSAGING_OPERATION_NAME = "messaging.operation.name";
  static final String MESSAGING_DESTINATION = "messaging.destination.name";
  static final String MESSAGING_PARTITION = "messaging.destination.partition.id";
  static final String MESSAGING_MESSAGE_ID = "messaging.message.id";

  static final String SYSTEM = "outboxer";
  static final String OUTBOX = "outboxer.outbox";
  static final String PARTITION = "outboxer.partition";
  static final String MESSAGE_ID = "outboxer.message.id";
  static final String MESSAGE_TYPE = "outboxer.message.type";
  static final String GROUP_KEY = "outboxer.group_key";
  static final String FENCING_TOKEN = "outboxer.fencing_token";
  /** Which delivery attempt of the message this is: 1 for the first. */
  static final String ATTEMPT = "outboxer.attempt";
  /** How the record's delivery ended: one of the {@code OUTCOME_*} values. */
  static final String OUTCOME = "outboxer.outcome";

  /** Delivered; deleted when the worker's transaction commits. Status OK. */
  static final String OUTCOME_CONFIRMED = "confirmed";
  /** Reported failed, or unreported when the relay threw; retried after a backoff. Status ERROR. */
  static final String OUTCOME_FAILED = "failed";
  /** Not sent: an earlier message of its ordering unit did not go through; stays pending. Status UNSET. */
  static final String OUTCOME_HELD_BACK = "held_back";
  /** The relay returned (or timed out) without reporting it; counts as failed. Status ERROR. */
  static final String OUTCOME_UNREPORTED = "unreported";
  /** Confirmed after an earlier message of its unit failed: not honoured, sent again later. Status ERROR. */
  static final String OUTCOME_CONFIRMATION_IGNORED = "confirmation_ignored";
  /** Reported after the batch's deadline: ignored, counts as failed. Status ERROR. */
  static final String OUTCOME_LATE = "reported_after_deadline";
  /** The worker's claim of the partition lapsed: nothing of the batch is committed. Status ERROR. */
  static final String OUTCOME_CLAIM_LAPSED = "claim_lapsed";
  /** The batch's transaction rolled back (the relay marked it, or the commit failed): the message goes again. */
  static final String OUTCOME_ROLLED_BACK = "rolled_back";
  /** The outcome of the batch's commit is unknown: the message may go again. */
  static final String OUTCOME_COMMIT_UNKNOWN = "commit_unknown";

  private SpanNames() {}

  static String spanName(String outbox) {
    return OPERATION + " " + outbox;
  }
}
