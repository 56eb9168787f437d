package dev.outboxer.opentelemetry;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import io.opentelemetry.api.trace.Tracer;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A relay that traces the relay it wraps: for each batch it starts one PRODUCER span per record,
 * hands the wrapped relay a {@link TracedBatch} whose records carry their span's context as {@code
 * traceparent}/{@code tracestate}, and ends each span with the record's outcome. The batch's
 * reports reach the core unchanged, for the original records.
 */
final class TracingRelay implements Relay {

  private final Relay delegate;
  private final Supplier<Tracer> tracer;

  TracingRelay(Relay delegate, Supplier<Tracer> tracer) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.tracer = tracer;
  }

  @Override
  public void relay(RelayBatch batch) throws Exception {
    TracedBatch traced = TracedBatch.start(batch, tracer.get());
    Throwable thrown = null;
    try {
      delegate.relay(traced);
    } catch (Exception | Error e) {
      thrown = e;
      throw e;
    } finally {
      traced.end(thrown);
    }
  }

  // close() is left as the default no-op: the core closes the relay it created, not this wrapper,
  // and an application relay bean belongs to CDI.

  @Override
  public String toString() {
    return "TracingRelay[" + delegate + "]";
  }
}
