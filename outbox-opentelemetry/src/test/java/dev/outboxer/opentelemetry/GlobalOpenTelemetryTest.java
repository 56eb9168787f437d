package dev.outboxer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Without an {@code OpenTelemetry} CDI bean the relay spans go to {@link GlobalOpenTelemetry}, read
 * at each batch and never set by Outboxer: until the application sets it, the publisher's trace
 * passes through unchanged; once it is set, its SDK records the relay spans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GlobalOpenTelemetryTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();
  private OutboxTestContainer container;

  @BeforeAll
  void start() {
    GlobalOpenTelemetry.resetForTest();
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.poll-interval", "100ms")
        .beans(RecordingRelay.class)
        .start();
  }

  @AfterAll
  void stop() {
    container.close();
    GlobalOpenTelemetry.resetForTest();
  }

  private OutboxRecord publishInSpanAndAwait(Span span) throws Exception {
    RecordingRelay relay = container.select(RecordingRelay.class);
    long id = InMemoryTelemetry.inSpan(span,
        () -> container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Ping("g", 1))));
    await().atMost(WAIT).until(() -> relay.confirmed().stream().anyMatch(record -> record.id() == id));
    return relay.confirmed().stream().filter(record -> record.id() == id).findFirst().orElseThrow();
  }

  @Test
  void the_global_instance_is_used_once_the_application_sets_it_and_until_then_the_trace_passes_unchanged()
      throws Exception {
    Span before = sdk.getTracer("test").spanBuilder("checkout").startSpan();
    OutboxRecord untraced = publishInSpanAndAwait(before);
    assertThat(untraced.headers().get("traceparent")).as("no-op: the publisher's context as it was stored")
        .startsWith("00-" + before.getSpanContext().getTraceId() + "-" + before.getSpanContext().getSpanId() + "-");
    assertThat(exporter.getFinishedSpanItems()).extracting(SpanData::getName).containsExactly("checkout");

    // Would throw had Outboxer set the global instance (GlobalOpenTelemetry.get() does on first use).
    GlobalOpenTelemetry.set(sdk);
    Span after = sdk.getTracer("test").spanBuilder("checkout").startSpan();
    OutboxRecord traced = publishInSpanAndAwait(after);
    await().atMost(WAIT).until(() -> exporter.getFinishedSpanItems().stream()
        .anyMatch(span -> span.getName().equals("publish orders")));
    SpanData relaySpan = exporter.getFinishedSpanItems().stream()
        .filter(span -> span.getName().equals("publish orders")).findFirst().orElseThrow();
    assertThat(relaySpan.getParentSpanId()).isEqualTo(after.getSpanContext().getSpanId());
    assertThat(traced.headers().get("traceparent")).contains(relaySpan.getSpanId());
  }
}
