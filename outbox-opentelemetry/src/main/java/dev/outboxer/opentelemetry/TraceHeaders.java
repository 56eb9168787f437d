package dev.outboxer.opentelemetry;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Map;

/**
 * The W3C trace-context headers on a message's header map. Always the W3C propagator, whatever
 * propagators the application configured: these two header names are what the relays pass on and
 * what consumers (and their instrumentation) read.
 */
final class TraceHeaders {

  static final String TRACEPARENT = "traceparent";
  static final String TRACESTATE = "tracestate";

  private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();

  private static final TextMapGetter<Map<String, String>> GETTER =
      (carrier, key) -> carrier == null ? null : carrier.get(key);

  private TraceHeaders() {}

  /** Writes the context's span as {@code traceparent} (and {@code tracestate} if it has one); nothing for an invalid span. */
  static void inject(Context context, Map<String, String> headers) {
    W3C.inject(context, headers, (carrier, key, value) -> carrier.put(key, value));
  }

  /** The remote span the headers name, as the parent context of a new span; the root context if they name none. */
  static Context extract(Map<String, String> headers) {
    return W3C.extract(Context.root(), headers, GETTER);
  }
}
