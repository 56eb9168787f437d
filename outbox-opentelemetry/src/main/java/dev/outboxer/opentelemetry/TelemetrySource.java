package dev.outboxer.opentelemetry;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

/**
 * Where the relay spans go: the application's CDI bean of type {@link OpenTelemetry} if there is
 * exactly one (MicroProfile Telemetry provides it), else {@link GlobalOpenTelemetry} as it stands at
 * each batch. The global instance is read with {@link GlobalOpenTelemetry#getOrNoop()}: Outboxer
 * never sets it nor triggers its autoconfiguration, so an application (or agent) that sets it
 * later is picked up, and until then spans are no-ops.
 */
@ApplicationScoped
class TelemetrySource {

  static final String INSTRUMENTATION_SCOPE = "dev.outboxer.opentelemetry";

  @Inject Instance<OpenTelemetry> beans;

  private volatile Boolean useBean;
  private volatile OpenTelemetry bean;
  private volatile Cached cached;

  private record Cached(OpenTelemetry openTelemetry, Tracer tracer) {}

  /** The tracer of the OpenTelemetry instance in force now. */
  Tracer tracer() {
    OpenTelemetry openTelemetry = openTelemetry();
    Cached current = cached;
    if (current != null && current.openTelemetry() == openTelemetry) {
      return current.tracer();
    }
    TracerBuilder builder = openTelemetry.tracerBuilder(INSTRUMENTATION_SCOPE);
    String version = TelemetrySource.class.getPackage().getImplementationVersion();
    if (version != null) {
      builder.setInstrumentationVersion(version);
    }
    Tracer tracer = builder.build();
    cached = new Cached(openTelemetry, tracer);
    return tracer;
  }

  OpenTelemetry openTelemetry() {
    if (useBean == null) {
      // Beans do not come and go after deployment: decide once, and take the instance once (a
      // dependent-scoped producer would otherwise build a new one per batch).
      synchronized (this) {
        if (useBean == null) {
          boolean resolvable = beans.isResolvable();
          bean = resolvable ? beans.get() : null;
          useBean = resolvable;
        }
      }
    }
    return useBean ? bean : GlobalOpenTelemetry.getOrNoop();
  }
}
