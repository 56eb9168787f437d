package dev.outboxer.spi;

import dev.outboxer.OutboxMessage;

/**
 * Turns messages into the bytes stored in the outbox and relayed, and back.
 *
 * <p>Outboxer uses the application's CDI bean of this type if there is one (exactly one; two are
 * a deployment error), and its built-in JSON-B codec ({@code application/json}, UTF-8) otherwise.
 * The codec runs inside {@link dev.outboxer.Outbox#publish}, on the caller's thread, in the
 * caller's transaction. Whatever it throws (any exception, a {@link LinkageError}, the {@link
 * StackOverflowError} of a payload nested too deeply) reaches the caller as an {@link
 * dev.outboxer.InvalidOutboxMessageException} of field {@code payload}, with the codec's failure as
 * cause; nothing is written and the transaction stays active. Implementations must be thread-safe.
 */
public interface PayloadCodec {

  /**
   * @return the media type of the encoded payloads, stored with each message and passed to relays
   *     (a relay sends textual types as text)
   */
  String contentType();

  /**
   * @param message the message to encode
   * @return the encoded message, never {@code null}
   */
  byte[] encode(OutboxMessage message);

  /**
   * Decodes a payload this codec encoded, for consumers and tests.
   *
   * @param payload the bytes
   * @param type the message class
   * @param <T> the message type
   * @return the decoded message
   */
  <T> T decode(byte[] payload, Class<T> type);
}
