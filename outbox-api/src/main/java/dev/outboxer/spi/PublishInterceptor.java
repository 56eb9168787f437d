package dev.outboxer.spi;

import dev.outboxer.OutboxMessage;
import java.util.Map;

/**
 * Adds headers to every message at publish, on the publishing thread, inside the caller's
 * transaction: the place to capture context that lives on that thread, such as the current trace
 * (W3C {@code traceparent}/{@code tracestate}), a tenant or a correlation id.
 *
 * <p>Outboxer calls every CDI bean of this type for every {@code publish}, before the message is
 * checked and written. A header the message sets itself wins over an interceptor's. The headers
 * are checked like the message's own (see {@link MessageConstraints}); an interceptor must not
 * return names in the reserved {@value StandardHeaders#RESERVED_PREFIX} space. Implementations
 * must be thread-safe and cheap, and must not throw: an exception fails the publish.
 */
public interface PublishInterceptor {

  /**
   * @param outbox the outbox the message goes to
   * @param message the message being published
   * @return headers to add; empty for none, never {@code null}
   */
  Map<String, String> headers(String outbox, OutboxMessage message);
}
