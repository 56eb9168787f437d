package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * outbox-opentelemetry in a Quarkus application with Quarkus' OpenTelemetry
 * ({@code quarkus-opentelemetry}): a message published inside a span is relayed under a span
 * {@code publish orders} (PRODUCER) that is the publisher's span's child, in the same trace, and the
 * relay receives that span's context in {@code traceparent}. The spans reach an in-memory exporter,
 * a CDI bean that Quarkus' OpenTelemetry exports to.
 */
class QuarkusTracingTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, OrderPlaced.class,
          ShipmentRequested.class, OrderService.class, RecordingRelay.class, TestOrder.class, SpanExporterProducer.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.shipping.relay", "recording")
      // Export finished spans within 50 ms, not Quarkus' default 5 s.
      .overrideConfigKey("quarkus.otel.bsp.schedule.delay", "50ms");

  /** The exporter the spans go to: Quarkus' OpenTelemetry exports to every SpanExporter bean. */
  @ApplicationScoped
  public static class SpanExporterProducer {
    @Produces
    @Singleton
    InMemorySpanExporter spans() {
      return InMemorySpanExporter.create();
    }
  }

  @Inject InMemorySpanExporter spans;
  @Inject Tracer tracer;
  @Inject OrderService orders;
  @Inject RecordingRelay relay;

  @Test
  void theRelaySpanContinuesThePublishersTraceAndTheRelayReceivesItsContext() throws Exception {
    Span checkout = tracer.spanBuilder("checkout").setSpanKind(SpanKind.SERVER).startSpan();
    try (Scope scope = checkout.makeCurrent()) {
      orders.place(800, "erin", 1, false, false);
    } finally {
      checkout.end();
    }

    SpanData relaySpan = awaitSpan("publish orders", "erin");
    assertThat(relaySpan.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(relaySpan.getTraceId()).isEqualTo(checkout.getSpanContext().getTraceId());
    assertThat(relaySpan.getParentSpanId()).as("parent: the publisher's span")
        .isEqualTo(checkout.getSpanContext().getSpanId());
    assertThat(relaySpan.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(relaySpan.getAttributes().get(AttributeKey.stringKey("outboxer.outcome"))).isEqualTo("confirmed");

    OutboxRecord sent = relay.handed().stream().filter(record -> "erin".equals(record.groupKey())).findFirst()
        .orElseThrow();
    assertThat(sent.headers().get("traceparent"))
        .startsWith("00-" + relaySpan.getTraceId() + "-" + relaySpan.getSpanId() + "-");
  }

  private SpanData awaitSpan(String name, String groupKey) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    List<SpanData> found;
    do {
      found = spans.getFinishedSpanItems().stream().filter(span -> span.getName().equals(name))
          .filter(span -> groupKey.equals(span.getAttributes().get(AttributeKey.stringKey("outboxer.group_key"))))
          .toList();
      if (!found.isEmpty()) {
        return found.get(0);
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("no span '" + name + "' of group " + groupKey + " among " + spans.getFinishedSpanItems()
        .stream().map(SpanData::getName).toList());
  }
}
