package dev.outboxer.opentelemetry;

import dev.outboxer.Ordering;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.OrderingUnits;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The batch the wrapped relay sees: the same records, each published with a trace carrying its
 * relay span's trace context in its headers instead, and every call passed on to the core's batch for the original record (matched by id,
 * as the core matches them). A record the core does not know is passed on as it is, so that the core
 * ignores and logs it as it would without tracing.
 *
 * <p>Spans end when the relay's call is over, each at the time its record was reported (or then, if
 * it was not), with the outcome the core gives it under the {@link dev.outboxer.spi.Relay} contract:
 * per ordering unit, records up to the first one that did not go through are confirmed, that one
 * failed, the rest of the unit held back. Only at the end is that known: a confirmation counts only
 * if no earlier record of its unit failed or went unreported.
 */
final class TracedBatch implements RelayBatch {

  /** What the relay reported for a record, and when. */
  private static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
  private static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");
  private record Report(boolean confirmed, Throwable cause, Instant at) {}

  /** One record: the core's, the one handed on, its span, and its first report. */
  private record Traced(OutboxRecord original, OutboxRecord handedOn, Span span, AtomicReference<Report> report) {}


  private final RelayBatch batch;
  private final Map<Long, Traced> byId;
  private final List<OutboxRecord> records;
  private volatile boolean closed;

  private TracedBatch(RelayBatch batch, Map<Long, Traced> byId) {
    this.batch = batch;
    this.byId = byId;
    List<OutboxRecord> handedOn = new ArrayList<>(byId.size());
    byId.values().forEach(traced -> handedOn.add(traced.handedOn()));
    this.records = Collections.unmodifiableList(handedOn);
  }

  /** Starts a span per record of the batch, in id order. */
  static TracedBatch start(RelayBatch batch, Tracer tracer) {
    Map<Long, Traced> byId = new LinkedHashMap<>();
    for (OutboxRecord record : batch.records()) {
      Span span = tracer.spanBuilder(SpanNames.spanName(record.outbox()))
          .setSpanKind(SpanKind.PRODUCER)
          // Parent: the publisher's span, so that the trace runs from the business transaction
          // through the outbox to the consumer. A record published without a trace gets a root span.
          .setParent(TraceHeaders.extract(record.headers()))
          .setAllAttributes(attributes(record, batch.fencingToken()))
          .startSpan();
      byId.put(record.id(), new Traced(record, withTraceOf(record, span), span, new AtomicReference<>()));
    }
    return new TracedBatch(batch, byId);
  }

  private static Attributes attributes(OutboxRecord record, long fencingToken) {
    AttributesBuilder attributes = Attributes.builder()
        .put(SpanNames.MESSAGING_SYSTEM, SpanNames.SYSTEM)
        .put(SpanNames.MESSAGING_OPERATION_TYPE, "send")
        .put(SpanNames.MESSAGING_OPERATION_NAME, SpanNames.OPERATION)
        .put(SpanNames.MESSAGING_DESTINATION, record.outbox())
        .put(SpanNames.MESSAGING_PARTITION, String.valueOf(record.partition()))
        .put(SpanNames.MESSAGING_MESSAGE_ID, String.valueOf(record.id()))
        .put(SpanNames.OUTBOX, record.outbox())
        .put(SpanNames.PARTITION, record.partition())
        .put(SpanNames.MESSAGE_ID, record.id())
        .put(SpanNames.MESSAGE_TYPE, record.type())
        .put(SpanNames.FENCING_TOKEN, fencingToken)
        .put(SpanNames.ATTEMPT, record.attempts() + 1L);
    if (record.groupKey() != null) {
      attributes.put(SpanNames.GROUP_KEY, record.groupKey());
    }
    return attributes.build();
  }

  /**
   * The record with the span's context in place of the publisher's. A record published without a
   * trace is handed on as it is: a header added now would not have been checked against the
   * destination's limits at publish (SQS takes 10 message attributes), and could make a message
   * that was accepted undeliverable.
   */
  private static OutboxRecord withTraceOf(OutboxRecord record, Span span) {
    if (!record.headers().containsKey(TraceHeaders.TRACEPARENT)) {
      return record;
    }
    Map<String, String> headers = new HashMap<>(record.headers());
    headers.remove(TraceHeaders.TRACEPARENT);
    headers.remove(TraceHeaders.TRACESTATE);
    TraceHeaders.inject(Context.root().with(span), headers);
    return new OutboxRecord(record.id(), record.outbox(), record.partition(), record.groupKey(), record.type(),
        record.contentType(), record.payload(), headers, record.attempts(), record.createdAt());
  }

  @Override
  public String outbox() {
    return batch.outbox();
  }

  @Override
  public int partition() {
    return batch.partition();
  }

  @Override
  public Ordering ordering() {
    return batch.ordering();
  }

  @Override
  public List<OutboxRecord> records() {
    return records;
  }

  @Override
  public long fencingToken() {
    return batch.fencingToken();
  }

  @Override
  public Instant deadline() {
    return batch.deadline();
  }

  @Override
  public boolean claimHeld() {
    return batch.claimHeld();
  }

  @Override
  public boolean heldBack(OutboxRecord record) {
    return batch.heldBack(original(record));
  }

  @Override
  public void confirm(OutboxRecord record) {
    batch.confirm(original(record));
    remember(record, new Report(true, null, Instant.now()));
  }

  @Override
  public void fail(OutboxRecord record, Throwable cause) {
    batch.fail(original(record), cause);
    remember(record, new Report(false, cause, Instant.now()));
  }

  /** The first report of a record within the batch's time counts, as in the core. */
  private void remember(OutboxRecord record, Report report) {
    Traced traced = record == null ? null : byId.get(record.id());
    if (traced != null && !closed) {
      traced.report().compareAndSet(null, report);
    }
  }

  /**
   * Ends every span when the relay's call is over, with the outcome the core gives its record.
   *
   * @param thrown what the relay threw, or {@code null} if it returned: the core fails unreported
   *     records with it
   */
  void end(Throwable thrown) {
    closed = true;
    boolean claimLapsed = !batch.claimHeld();
    Set<Object> brokenUnits = new HashSet<>();
    for (Traced traced : byId.values()) {
      Report report = traced.report().get();
      // A report after the deadline is ignored by the core: the record counts as unreported.
      boolean late = report != null && report.at().isAfter(batch.deadline());
      Report counted = late ? null : report;
      Instant at = report == null ? Instant.now() : report.at();
      Object unit = unitOf(traced.original());
      if (claimLapsed) {
        end(traced, SpanNames.OUTCOME_CLAIM_LAPSED, StatusCode.ERROR, "the worker's claim of the partition lapsed:"
            + " nothing of this batch is committed and the message goes out again", null, at);
      } else if (unit != null && brokenUnits.contains(unit)) {
        if (counted != null && counted.confirmed()) {
          end(traced, SpanNames.OUTCOME_CONFIRMATION_IGNORED, StatusCode.ERROR, "confirmed after an earlier message"
              + " of its ordering unit did not go through: the message stays pending and is sent again", null, at);
        } else {
          end(traced, SpanNames.OUTCOME_HELD_BACK, StatusCode.UNSET, null, null, at);
        }
      } else if (counted != null && counted.confirmed()) {
        end(traced, SpanNames.OUTCOME_CONFIRMED, StatusCode.OK, null, null, at);
      } else {
        if (counted != null) {
          end(traced, SpanNames.OUTCOME_FAILED, StatusCode.ERROR, Failures.describe(counted.cause()), counted.cause(),
              at);
        } else if (late) {
          end(traced, SpanNames.OUTCOME_LATE, StatusCode.ERROR, "reported after the batch's deadline: the report is"
              + " ignored and the message counts as failed", thrown != null ? thrown : report.cause(), at);
        } else if (thrown != null) {
          end(traced, SpanNames.OUTCOME_FAILED, StatusCode.ERROR, Failures.describe(thrown), thrown, at);
        } else {
          end(traced, SpanNames.OUTCOME_UNREPORTED, StatusCode.ERROR, "the relay returned without reporting the"
              + " message: it counts as failed", null, at);
        }
        brokenUnits.add(unit);
      }
    }
  }

  private static void end(Traced traced, String outcome, StatusCode status, String description, Throwable cause,
      Instant at) {
    Span span = traced.span();
    span.setAttribute(SpanNames.OUTCOME, outcome);
    if (cause != null) {
      // The relay's throwable may fail when asked to describe itself: the span gets a stand-in that cannot, under
      // the real class's name.
      AttributesBuilder exception = Attributes.builder().put(EXCEPTION_TYPE, cause.getClass().getName());
      String message = Failures.message(cause);
      exception.put(EXCEPTION_MESSAGE, message != null ? message : Failures.describe(cause));
      span.recordException(Failures.loggable(cause), exception.build());
    }
    if (description == null) {
      span.setStatus(status);
    } else {
      span.setStatus(status, description);
    }
    span.end(at);
  }

  /** The record's ordering unit; {@code null} for a record that is a unit of its own. */
  private Object unitOf(OutboxRecord record) {
    return OrderingUnits.unitOf(batch.ordering(), record);
  }

  /** The core's record for one handed on, or the record itself if the batch has no such id. */
  private OutboxRecord original(OutboxRecord record) {
    Traced traced = record == null ? null : byId.get(record.id());
    return traced == null ? record : traced.original();
  }
}
