package dev.outboxer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTables;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A trace from the publisher's span through the outbox to the headers the relay sends, on
 * PostgreSQL with the real core and workers: the module's beans are found by bean discovery, as
 * in an application, and the spans go to the application's {@code OpenTelemetry} bean (an SDK with
 * an in-memory exporter). Outbox {@code orders} retries after 100 ms, {@code kept} after ten
 * minutes (its failed messages stay in the table to be looked at).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingThroughOutboxTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  private OutboxTestContainer container;
  private Outbox outbox;
  private RecordingRelay relay;

  private QuietLogs quiet;

  @BeforeAll
  void start() {
    // The warning about messages of 'kept' waiting for their retry is expected.
    quiet = QuietLogs.of("dev.outboxer.cdi.internal.work");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.orders.max-poll-interval", "200ms")
        .config("outbox.orders.backoff.min", "100ms")
        .config("outbox.orders.backoff.max", "200ms")
        .config("outbox.kept.relay", "recording")
        .config("outbox.kept.backoff.min", "10m")
        .config("outbox.kept.backoff.max", "10m")
        .beans(RecordingRelay.class, InMemoryTelemetry.class)
        .start();
    outbox = container.select(Outbox.class);
    relay = container.select(RecordingRelay.class);
  }

  @AfterAll
  void stop() {
    container.close();
    quiet.close();
  }

  @BeforeEach
  void clean() {
    relay.reset();
    InMemoryTelemetry.EXPORTER.reset();
  }

  /** Publishes in a transaction, inside a span of its own if {@code traced}; returns the id and the span. */
  private Published publish(String outboxName, Ping message, boolean traced) throws Exception {
    if (!traced) {
      return new Published(container.inTransaction(() -> outbox.publish(outboxName, message)), null);
    }
    Span checkout = InMemoryTelemetry.testTracer().spanBuilder("checkout").setSpanKind(SpanKind.SERVER).startSpan();
    return new Published(
        InMemoryTelemetry.inSpan(checkout, () -> container.inTransaction(() -> outbox.publish(outboxName, message))),
        checkout);
  }

  private record Published(long id, Span span) {}

  private static List<SpanData> relaySpans(String outboxName, long id) {
    return InMemoryTelemetry.spans("publish " + outboxName).stream()
        .filter(span -> Long.valueOf(id).equals(span.getAttributes().get(AttributeKey.longKey("outboxer.message.id"))))
        .toList();
  }

  private OutboxRecord handed(long id) {
    return relay.handed().stream().filter(record -> record.id() == id).findFirst().orElseThrow();
  }

  @Test
  void a_batch_whose_commit_failed_ends_its_spans_rolled_back_and_the_retry_confirmed() throws Exception {
    // The relay confirms; the commit after it fails: nothing of the batch happened, and the span must not say
    // "confirmed" (the core's decision, not a recomputation of the relay's reports).
    relay.failCommitOfNextBatch();
    Published published = publish("orders", new Ping("order:9", 1), false);
    await().atMost(WAIT).until(() -> relaySpans("orders", published.id()).size() >= 2);

    List<SpanData> spans = relaySpans("orders", published.id()).stream()
        .sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos)).toList();
    assertThat(spans.get(0).getAttributes().get(AttributeKey.stringKey("outboxer.outcome"))).isEqualTo("rolled_back");
    assertThat(spans.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(spans.get(spans.size() - 1).getAttributes().get(AttributeKey.stringKey("outboxer.outcome")))
        .isEqualTo("confirmed");
  }

  @Test
  void a_span_around_publish_continues_through_the_relay_span_into_the_headers_the_relay_receives() throws Exception {
    Published published = publish("orders", new Ping("order:7", 1, Map.of("tenant", "acme")), true);
    assertThat(relay.awaitConfirmed(1, WAIT)).isTrue();
    await().atMost(WAIT).until(() -> relaySpans("orders", published.id()).size() == 1);

    SpanData relaySpan = relaySpans("orders", published.id()).get(0);
    assertThat(relaySpan.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(relaySpan.getTraceId()).isEqualTo(published.span().getSpanContext().getTraceId());
    assertThat(relaySpan.getParentSpanId()).as("parent: the publisher's span")
        .isEqualTo(published.span().getSpanContext().getSpanId());
    assertThat(relaySpan.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(relaySpan.getAttributes().asMap()).containsEntry(AttributeKey.stringKey("outboxer.outbox"), "orders")
        .containsEntry(AttributeKey.longKey("outboxer.partition"), 0L)
        .containsEntry(AttributeKey.stringKey("outboxer.group_key"), "order:7")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), String.valueOf(published.id()))
        .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "send")
        .containsEntry(AttributeKey.stringKey("outboxer.outcome"), "confirmed");
    assertThat(relaySpan.getAttributes().get(AttributeKey.longKey("outboxer.fencing_token"))).isPositive();

    OutboxRecord sent = handed(published.id());
    assertThat(sent.headers().get("traceparent"))
        .startsWith("00-" + relaySpan.getTraceId() + "-" + relaySpan.getSpanId() + "-");
    assertThat(sent.headers()).containsEntry("tenant", "acme");
  }

  @Test
  void the_publisher_trace_is_stored_with_the_message_only_when_a_span_is_current() throws Exception {
    relay.failWhen(record -> record.outbox().equals("kept"));
    Published traced = publish("kept", new Ping("a", 1), true);
    Published untraced = publish("kept", new Ping("b", 1), false);
    OutboxTables tables = container.tables();
    await().atMost(WAIT).until(() -> tables.message(traced.id()).orElseThrow().attempts() == 1
        && tables.message(untraced.id()).orElseThrow().attempts() == 1);

    assertThat(tables.message(traced.id()).orElseThrow().headers()).contains("traceparent",
        published(traced.span()));
    assertThat(tables.message(untraced.id()).orElseThrow().headers()).as("no headers stored at all").isNull();
    SpanData rootSpan = relaySpans("kept", untraced.id()).get(0);
    assertThat(rootSpan.getParentSpanContext().isValid()).as("a message without a trace starts one").isFalse();
    assertThat(handed(untraced.id()).headers()).as("and is sent without trace headers").isEmpty();
    container.select(OutboxAdmin.class).discardAll("kept", traced.id(), untraced.id());
  }

  private static String published(Span span) {
    return span.getSpanContext().getTraceId() + "-" + span.getSpanContext().getSpanId();
  }

  @Test
  void a_failed_delivery_ends_its_span_with_status_error_and_the_retry_continues_the_same_trace() throws Exception {
    relay.failWhen(record -> record.attempts() == 0);
    Published published = publish("orders", new Ping("order:8", 1), true);
    assertThat(relay.awaitConfirmed(1, WAIT)).isTrue();
    await().atMost(WAIT).until(() -> relaySpans("orders", published.id()).size() == 2);

    List<SpanData> attempts = relaySpans("orders", published.id());
    SpanData failed = attempts.get(0);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("outboxer.outcome"))).isEqualTo("failed");
    assertThat(failed.getAttributes().get(AttributeKey.longKey("outboxer.attempt"))).isEqualTo(1L);
    assertThat(failed.getEvents()).singleElement().satisfies(event -> assertThat(
        event.getAttributes().get(AttributeKey.stringKey("exception.message")))
        .isEqualTo("induced failure of message " + published.id()));
    SpanData retried = attempts.get(1);
    assertThat(retried.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(retried.getAttributes().get(AttributeKey.longKey("outboxer.attempt"))).isEqualTo(2L);
    assertThat(attempts).allSatisfy(span ->
        assertThat(span.getParentSpanId()).isEqualTo(published.span().getSpanContext().getSpanId()));
  }
}
