package dev.outboxer.opentelemetry;

import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.PublishInterceptor;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Stores the publisher's trace with every message: when the publishing thread has a valid current
 * span, its context goes into the headers {@code traceparent} and {@code tracestate} (W3C trace
 * context). Adds nothing otherwise. A message that sets these headers itself keeps its own.
 */
@ApplicationScoped
class TracingPublishInterceptor implements PublishInterceptor {

  private static final Logger LOG = Logger.getLogger(TracingPublishInterceptor.class.getName());
  private final AtomicBoolean warned = new AtomicBoolean();

  @Override
  public Map<String, String> headers(String outbox, OutboxMessage message) {
    try {
      Context current = Context.current();
      if (!Span.fromContext(current).getSpanContext().isValid()) {
        return Map.of();
      }
      Map<String, String> headers = new HashMap<>(2);
      TraceHeaders.inject(current, headers);
      return headers;
    } catch (RuntimeException | LinkageError broken) {
      // Tracing must never cost a publish: the message goes out untraced.
      if (warned.compareAndSet(false, true)) {
        LOG.log(Level.WARNING, "Outbox '" + outbox + "': the current trace could not be stored with the message ("
            + Failures.describe(broken) + "); messages are published without trace headers while this lasts (logged once)",
            Failures.loggable(broken));
      }
      return Map.of();
    }
  }
}
