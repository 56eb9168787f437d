package dev.outboxer.spi;

/**
 * The header names under which relays pass Outboxer's own information on to consumers. Kafka and
 * SQS use these names as they are; JMS, whose property names must be Java identifiers, uses the
 * camel-case spelling given with each constant. All values are text (JMS: typed as noted).
 *
 * <p>A consumer drops duplicates with {@link #ID} and {@link #GROUP_KEY}: within a group, ids only
 * increase, so a message whose id is not greater than the last one processed for its group is a
 * duplicate (or, after a dead message was revived, a late message: see the README's consumer
 * section). Header names of messages starting with {@value #RESERVED_PREFIX} are reserved for
 * these; {@code publish} rejects them.
 */
public final class StandardHeaders {

  /** The message id, a decimal number. JMS: {@code outboxId} (long). Always present. */
  public static final String ID = "outbox-id";

  /** The group key. JMS: {@code outboxGroupKey}. Absent for a message without group key. */
  public static final String GROUP_KEY = "outbox-group-key";

  /** The outbox name. JMS: {@code outboxName}. Always present. */
  public static final String OUTBOX = "outbox-name";

  /** The message type. JMS: {@code outboxType} (and {@code JMSType}). Always present. */
  public static final String TYPE = "outbox-type";

  /** The payload's media type. JMS: {@code outboxContentType}. Always present. */
  public static final String CONTENT_TYPE = "outbox-content-type";

  /** The partition the message was relayed from. JMS: {@code outboxPartition} (int). */
  public static final String PARTITION = "outbox-partition";

  /**
   * The {@linkplain RelayBatch#fencingToken() fencing token} of the claim that sent the message.
   * JMS: {@code outboxFencingToken} (long).
   */
  public static final String FENCING_TOKEN = "outbox-fencing-token";

  /** The prefix of every name above, reserved for Outboxer. */
  public static final String RESERVED_PREFIX = "outbox-";

  private StandardHeaders() {}
}
