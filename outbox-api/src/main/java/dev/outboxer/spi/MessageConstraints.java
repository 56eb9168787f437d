package dev.outboxer.spi;

/**
 * What a relay's destination cannot carry, checked by {@link dev.outboxer.Outbox#publish} before
 * anything is written, so that a message the relay could never deliver is refused at once instead
 * of failing (and blocking its group) later.
 *
 * <p>Outboxer itself already refuses what no destination can carry: {@code null} header names or
 * values, NUL characters, text that is not valid Unicode, and names in the reserved {@value
 * StandardHeaders#RESERVED_PREFIX} space. A relay adds its destination's own rules here: a JMS
 * provider's property rules, an SQS attribute's character set, a broker's maximum record size.
 *
 * <p>Obtained from {@link RelayProvider#constraints(RelayContext)} once per outbox at deployment,
 * on every node (also on nodes that only publish). Implementations must be thread-safe and cheap:
 * they run inside every {@code publish}.
 */
public interface MessageConstraints {

  /** No constraints beyond Outboxer's own. */
  MessageConstraints NONE = new MessageConstraints() {};

  /**
   * @param name a header name of a message being published (not null, valid Unicode, no NUL)
   * @param value its value (same)
   * @return {@code null} if the destination can carry the header; otherwise why not, as a short
   *     phrase that completes "header 'x' ...", for example {@code "is longer than 256 characters"}
   */
  default String checkHeader(String name, String value) {
    return null;
  }

  /**
   * Checks the message as a whole, after its headers passed {@link #checkHeader}: for limits that
   * depend on several fields together, such as a destination's maximum message size counting the
   * payload and the headers, or its number of attributes. {@code publish} reaches it through the
   * default {@link #checkMessage(String, String, String, byte[], java.util.Map)}; a relay that
   * needs the type or the payload's bytes overrides that one instead.
   *
   * @param groupKey the group key, or {@code null}
   * @param contentType the payload's media type
   * @param payloadBytes the encoded payload's size
   * @param headers the message's own headers (not the ones the relay adds)
   * @return {@code null} if the destination can carry the message; otherwise why not, as a short
   *     phrase that completes "the message ...", for example {@code "is 300000 bytes with its
   *     attributes; SQS takes at most 262144"}
   */
  default String checkMessage(String groupKey, String contentType, long payloadBytes,
      java.util.Map<String, String> headers) {
    return null;
  }

  /**
   * Checks the message as a whole with everything the relay will have: the message type and the
   * encoded payload itself, for limits that depend on them and not only on the payload's size,
   * such as a destination that cannot carry some characters as text and so sends the payload in a
   * larger encoding (SQS: Base64, with an attribute saying so), or counts the type towards its
   * maximum message size. {@code publish} calls this one; by default it calls {@link
   * #checkMessage(String, String, long, java.util.Map)} with the payload's length.
   *
   * @param type the message type, as {@link OutboxRecord#type()} will hold it
   * @param groupKey the group key, or {@code null}
   * @param contentType the payload's media type
   * @param payload the encoded payload, as the relay will get it; must not be modified
   * @param headers the message's own headers (not the ones the relay adds)
   * @return {@code null} if the destination can carry the message; otherwise why not, as a short
   *     phrase that completes "the message ..."
   */
  default String checkMessage(String type, String groupKey, String contentType, byte[] payload,
      java.util.Map<String, String> headers) {
    return checkMessage(groupKey, contentType, payload.length, headers);
  }

  /**
   * @return the largest payload, in bytes, the destination accepts; {@link Long#MAX_VALUE} for no
   *     limit of its own
   */
  default long maxPayloadBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * @return the largest total size of the headers (names and values, UTF-8 bytes) the destination
   *     accepts; {@link Long#MAX_VALUE} for no limit of its own
   */
  default long maxHeaderBytes() {
    return Long.MAX_VALUE;
  }
}
