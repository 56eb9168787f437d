package dev.outboxer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RecordOutcome;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.testing.ForwardingRelayBatch;
import dev.outboxer.testing.TestRelayBatch;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tracing relay keeps the Relay contract towards the core, checked against {@link
 * TestRelayBatch} (the stand-in of the core's batch, which refuses records that are not its own):
 * every report reaches the core for the original record, everything else passes through, and each
 * span ends with the outcome the core gives its record.
 */
class TracingRelayContractTest {

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();
  private long nextId = 1;

  @BeforeEach
  void reset() {
    exporter.reset();
  }

  private OutboxRecord record(String group, Map<String, String> headers) {
    return new OutboxRecord(nextId++, "orders", 3, group, "OrderPlaced", "application/json",
        "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8), headers, 0, Instant.parse("2026-01-01T00:00:00Z"));
  }

  private OutboxRecord record(String group) {
    return record(group, Map.of());
  }

  /** Runs the batch through a tracing relay around the given relay, as the core would, and ends it. */
  private void relay(TestRelayBatch batch, Relay inner) throws Exception {
    Throwable thrown = null;
    try {
      new TracingRelay(inner, () -> sdk.getTracer("outboxer")).relay(batch);
    } catch (Exception | Error e) {
      thrown = e;
      throw e;
    } finally {
      batch.end(thrown);
    }
  }

  private SpanData span(OutboxRecord record) {
    return exporter.getFinishedSpanItems().stream()
        .filter(span -> Long.valueOf(record.id()).equals(span.getAttributes().get(AttributeKey.longKey("outboxer.message.id"))))
        .findFirst().orElseThrow(() -> new AssertionError("no span for message " + record.id()));
  }

  private static String outcome(SpanData span) {
    return span.getAttributes().get(AttributeKey.stringKey("outboxer.outcome"));
  }

  @Test
  void the_wrapped_relay_sees_the_batch_as_the_core_made_it_except_for_the_trace_headers() throws Exception {
    OutboxRecord first = record("g", Map.of("tenant", "t1", "traceparent",
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    OutboxRecord second = record(null);
    TestRelayBatch batch = new TestRelayBatch("orders", Ordering.GROUP, Instant.now().plusSeconds(30),
        List.of(first, second)).fencingToken(42);
    AtomicReference<RelayBatch> seen = new AtomicReference<>();
    List<Object> values = new ArrayList<>();

    relay(batch, inner -> {
      seen.set(inner);
      values.addAll(List.of(inner.outbox(), inner.partition(), inner.ordering(), inner.fencingToken(),
          inner.deadline(), inner.claimHeld()));
      batch.loseClaim();
      values.add(inner.claimHeld());
      values.add(inner.heldBack(inner.records().get(0)));
    });

    assertThat(values).containsExactly("orders", 3, Ordering.GROUP, 42L, batch.deadline(), true, false, true);
    List<OutboxRecord> handed = seen.get().records();
    assertThat(handed).extracting(OutboxRecord::id).containsExactly(first.id(), second.id());
    OutboxRecord handedFirst = handed.get(0);
    assertThat(handedFirst.headers()).containsEntry("tenant", "t1").containsKey("traceparent")
        .doesNotContainEntry("traceparent", first.headers().get("traceparent"));
    assertThat(List.of(handedFirst.outbox(), handedFirst.partition(), handedFirst.groupKey(), handedFirst.type(),
        handedFirst.contentType(), handedFirst.payloadText(), handedFirst.attempts(), handedFirst.createdAt()))
        .isEqualTo(List.of(first.outbox(), first.partition(), first.groupKey(), first.type(), first.contentType(),
            first.payloadText(), first.attempts(), first.createdAt()));
    assertThatThrownBy(() -> handed.add(first)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void each_report_reaches_the_core_for_the_original_record_and_ends_its_span_with_that_outcome() throws Exception {
    OutboxRecord ok = record("a");
    OutboxRecord bad = record("b");
    OutboxRecord behindBad = record("b");
    OutboxRecord unreported = record("c");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, ok, bad, behindBad, unreported);
    IllegalStateException refused = new IllegalStateException("destination refused message " + bad.id());

    relay(batch, inner -> {
      for (OutboxRecord record : inner.records()) {
        if (inner.heldBack(record)) {
          continue;
        }
        if (record.id() == ok.id()) {
          inner.confirm(record);
          inner.fail(record, new IllegalStateException("a second report"));
        } else if (record.id() == bad.id()) {
          inner.fail(record, refused);
        }
      }
    });

    assertThat(batch.confirmed()).containsExactly(ok);
    assertThat(batch.failure(bad)).isSameAs(refused);
    assertThat(batch.outcome(behindBad)).isNull();
    assertThat(batch.violations()).isEmpty();

    SpanData okSpan = span(ok);
    assertThat(okSpan.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(outcome(okSpan)).isEqualTo("confirmed");
    SpanData badSpan = span(bad);
    assertThat(badSpan.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(outcome(badSpan)).isEqualTo("failed");
    assertThat(badSpan.getEvents()).singleElement().satisfies(event -> {
      assertThat(event.getName()).isEqualTo("exception");
      assertThat(event.getAttributes().get(AttributeKey.stringKey("exception.message"))).isEqualTo(refused.getMessage());
    });
    assertThat(span(behindBad).getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(outcome(span(behindBad))).isEqualTo("held_back");
    assertThat(span(unreported).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(outcome(span(unreported))).isEqualTo("unreported");
    assertThat(exporter.getFinishedSpanItems()).hasSize(4).allSatisfy(span -> {
      assertThat(span.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(span.getName()).isEqualTo("publish orders");
    });
  }

  @Test
  void a_confirmation_after_an_unreported_record_of_its_group_is_shown_as_ignored_as_the_core_ignores_it()
      throws Exception {
    OutboxRecord skipped = record("g");
    OutboxRecord confirmedTooEarly = record("g");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, skipped, confirmedTooEarly);

    relay(batch, inner -> inner.confirm(inner.records().get(1)));

    assertThat(outcome(span(skipped))).isEqualTo("unreported");
    assertThat(outcome(span(confirmedTooEarly))).isEqualTo("confirmation_ignored");
    assertThat(span(confirmedTooEarly).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void when_the_relay_throws_its_unreported_records_fail_with_that_exception_and_it_reaches_the_core()
      throws Exception {
    OutboxRecord sent = record(null);
    OutboxRecord notSent = record(null);
    TestRelayBatch batch = TestRelayBatch.of(Ordering.NONE, sent, notSent);
    IllegalStateException brokerDown = new IllegalStateException("broker down");

    assertThatThrownBy(() -> relay(batch, inner -> {
      inner.confirm(inner.records().get(0));
      throw brokerDown;
    })).isSameAs(brokerDown);

    assertThat(outcome(span(sent))).isEqualTo("confirmed");
    SpanData failed = span(notSent);
    assertThat(outcome(failed)).isEqualTo("failed");
    assertThat(failed.getStatus().getDescription()).contains("broker down");
    assertThat(failed.getEvents()).extracting(event -> event.getName()).containsExactly("exception");
  }

  @Test
  void a_failure_that_cannot_describe_itself_ends_its_span_failed_and_reaches_the_core_unchanged() throws Exception {
    OutboxRecord failing = record("g");
    OutboxRecord other = record("h");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, failing, other);
    Undescribable cause = new Undescribable();

    relay(batch, inner -> {
      inner.fail(inner.records().get(0), cause);
      inner.confirm(inner.records().get(1));
    });

    assertThat(batch.failure(failing)).isSameAs(cause);
    SpanData failed = span(failing);
    assertThat(outcome(failed)).isEqualTo("failed");
    assertThat(failed.getStatus().getDescription())
        .isEqualTo(Undescribable.class.getName() + " [its description failed: java.lang.AssertionError]");
    assertThat(failed.getEvents()).singleElement().satisfies(event -> assertThat(event.getAttributes()
        .get(AttributeKey.stringKey("exception.type"))).isEqualTo(Undescribable.class.getName()));
    assertThat(outcome(span(other))).isEqualTo("confirmed");
  }

  @Test
  void a_relay_that_throws_an_exception_that_cannot_describe_itself_gets_it_back_and_its_spans_end()
      throws Exception {
    OutboxRecord notSent = record(null);
    TestRelayBatch batch = TestRelayBatch.of(Ordering.NONE, notSent);
    Undescribable thrown = new Undescribable();

    assertThatThrownBy(() -> relay(batch, inner -> {
      throw thrown;
    })).isSameAs(thrown);

    assertThat(outcome(span(notSent))).isEqualTo("failed");
  }

  /** An exception whose every description throws. */
  static final class Undescribable extends IllegalStateException {
    @Override
    public String getMessage() {
      throw new AssertionError("no description");
    }
  }

  @Test
  void under_a_batch_that_does_not_tell_its_outcomes_the_spans_end_when_the_relay_returns_by_the_contracts_rule()
      throws Exception {
    OutboxRecord bad = record("g");
    OutboxRecord behind = record("g");
    OutboxRecord other = record("h");
    TestRelayBatch core = TestRelayBatch.of(Ordering.GROUP, bad, behind, other);
    RelayBatch silent = new SilentBatch(core);

    new TracingRelay(inner -> {
      inner.fail(inner.records().get(0), new IllegalStateException("refused"));
      inner.confirm(inner.records().get(2));
    }, () -> sdk.getTracer("outboxer")).relay(silent);

    assertThat(outcome(span(bad))).isEqualTo("failed");
    assertThat(outcome(span(behind))).isEqualTo("held_back");
    assertThat(outcome(span(other))).isEqualTo("confirmed");
  }

  /** A batch of a relay's own making: passes everything on but does not tell outcomes. */
  private static final class SilentBatch extends ForwardingRelayBatch {
    SilentBatch(RelayBatch batch) {
      super(batch);
    }

    @Override
    public boolean whenSettled(Consumer<List<RecordOutcome>> listener) {
      return false;
    }
  }


  @Test
  void after_the_claim_lapsed_every_span_says_nothing_of_the_batch_is_committed() throws Exception {
    OutboxRecord one = record("g");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, one);

    relay(batch, inner -> {
      inner.confirm(inner.records().get(0));
      batch.loseClaim();
    });

    assertThat(outcome(span(one))).isEqualTo("claim_lapsed");
    assertThat(span(one).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void the_span_is_a_child_of_the_publisher_span_and_replaces_its_context_in_the_headers() throws Exception {
    Span publisher = sdk.getTracer("test").spanBuilder("checkout").startSpan();
    Map<String, String> stored = new HashMap<>();
    TraceHeaders.inject(Context.root().with(publisher), stored);
    stored.put("tracestate", "vendor=publisher");
    publisher.end();
    OutboxRecord traced = record("g", stored);
    OutboxRecord untraced = record("h");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, traced, untraced);
    List<OutboxRecord> handed = new ArrayList<>();

    relay(batch, inner -> {
      handed.addAll(inner.records());
      inner.records().forEach(inner::confirm);
    });

    SpanData relaySpan = span(traced);
    SpanContext publisherContext = publisher.getSpanContext();
    assertThat(relaySpan.getParentSpanContext().getSpanId()).isEqualTo(publisherContext.getSpanId());
    assertThat(relaySpan.getTraceId()).isEqualTo(publisherContext.getTraceId());
    assertThat(handed.get(0).headers().get("traceparent"))
        .startsWith("00-" + relaySpan.getTraceId() + "-" + relaySpan.getSpanId() + "-");
    // The SDK hands the parent's trace state on to its children.
    assertThat(handed.get(0).headers().get("tracestate")).isEqualTo("vendor=publisher");
    SpanData rootSpan = span(untraced);
    assertThat(rootSpan.getParentSpanContext().isValid()).isFalse();
    assertThat(handed.get(1)).as("published without a trace: handed on as it is").isSameAs(untraced);
    assertThat(relaySpan.getAttributes().get(AttributeKey.longKey("outboxer.fencing_token"))).isEqualTo(1L);
    assertThat(relaySpan.getAttributes().get(AttributeKey.stringKey("outboxer.group_key"))).isEqualTo("g");
    assertThat(relaySpan.getAttributes().get(AttributeKey.longKey("outboxer.partition"))).isEqualTo(3L);
    assertThat(relaySpan.getAttributes().get(AttributeKey.longKey("outboxer.attempt"))).isEqualTo(1L);
    assertThat(rootSpan.getAttributes().get(AttributeKey.stringKey("outboxer.group_key"))).isEqualTo("h");
  }
}
