package dev.outboxer.opentelemetry;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Wraps every outbox's relay in a {@link TracingRelay}. */
@ApplicationScoped
class TracingRelayInterceptor implements RelayInterceptor {

  @Inject TelemetrySource telemetry;

  @Override
  public Relay intercept(Relay relay, RelayContext context) {
    return new TracingRelay(relay, telemetry::tracer);
  }
}
