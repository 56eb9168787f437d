package dev.outboxer.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A real OpenTelemetry SDK whose spans are kept in memory, offered as the CDI bean an application
 * (or MicroProfile Telemetry) would provide. Spans are exported as they end.
 */
public class InMemoryTelemetry {

  static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();
  static final OpenTelemetrySdk SDK = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(EXPORTER)).build())
      .build();

  @Produces
  @Singleton
  OpenTelemetry openTelemetry() {
    return SDK;
  }

  /** The test's own tracer, for the spans around publish. */
  static Tracer testTracer() {
    return SDK.getTracer("test");
  }

  /** Runs work with the span current, then ends the span. */
  static <T> T inSpan(Span span, Callable<T> work) throws Exception {
    Scope scope = span.makeCurrent();
    try {
      return work.call();
    } finally {
      scope.close();
      span.end();
    }
  }

  /** Ended spans with this name, in the order they ended. */
  static List<SpanData> spans(String name) {
    return EXPORTER.getFinishedSpanItems().stream().filter(span -> span.getName().equals(name)).toList();
  }
}
