package dev.outboxer.opentelemetry;

import dev.outboxer.Ordering;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RecordOutcome;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The batch the wrapped relay sees: the same records, each published with a trace carrying its
 * relay span's trace context in its headers instead, and every call passed on to the core's batch for the original record (matched by id,
 * as the core matches them). A record the core does not know is passed on as it is, so that the core
 * ignores and logs it as it would without tracing.
 *
 * <p>Each span ends with the outcome the core gave its record ({@link RelayBatch#whenSettled}): confirmed, failed,
 * held back, ignored, or what the batch's transaction made of it (claim lapsed, rolled back, commit unknown), at
 * the time its record was reported (or when the outcome is known, if it was not). Under a batch that does not tell
 * its outcomes (not the core's), the spans end when the relay's call is over, by the contract's rule ({@link
 * RecordOutcome#settle}) applied to what the relay reported.
 */
final class TracedBatch implements RelayBatch {

  /** What the relay reported for a record, and when. */
  private static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
  private static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");
  private record Report(boolean confirmed, Throwable cause, Instant at, boolean late) {}

  /** One record: the core's, the one handed on, its span, its first report, and whether its span ended. */
  private record Traced(OutboxRecord original, OutboxRecord handedOn, Span span, AtomicReference<Report> report,
      AtomicBoolean ended) {}


  private final RelayBatch batch;
  private final Map<Long, Traced> byId;
  private final List<OutboxRecord> records;
  private volatile boolean closed;
  private volatile Throwable relayThrew;
  private final boolean settledByCore;

  private TracedBatch(RelayBatch batch, Map<Long, Traced> byId) {
    this.batch = batch;
    this.byId = byId;
    this.settledByCore = batch.whenSettled(this::settled);
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
      byId.put(record.id(), new Traced(record, withTraceOf(record, span), span, new AtomicReference<>(),
          new AtomicBoolean()));
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

  /** Tells a nested interceptor the core's outcomes, for the records as it was handed them. */
  @Override
  public boolean whenSettled(Consumer<List<RecordOutcome>> listener) {
    return batch.whenSettled(outcomes -> listener.accept(outcomes.stream().map(outcome -> {
      Traced traced = byId.get(outcome.record().id());
      return traced == null ? outcome
          : new RecordOutcome(traced.handedOn(), outcome.kind(), outcome.cause(), outcome.reportedAt());
    }).toList()));
  }

  @Override
  public void confirm(OutboxRecord record) {
    batch.confirm(original(record));
    remember(record, new Report(true, null, Instant.now(), false));
  }

  @Override
  public void fail(OutboxRecord record, Throwable cause) {
    batch.fail(original(record), cause);
    remember(record, new Report(false, cause, Instant.now(), false));
  }

  /** The first report of a record counts, as in the core; one after the batch ended is marked late. */
  private void remember(OutboxRecord record, Report report) {
    Traced traced = record == null ? null : byId.get(record.id());
    if (traced != null) {
      traced.report().compareAndSet(null, closed ? new Report(report.confirmed(), report.cause(), report.at(), true)
          : report);
    }
  }

  /**
   * The relay's call is over. If the core's batch tells its outcomes ({@link RelayBatch#whenSettled}), the spans
   * end when it does, with the core's decisions (the transaction's outcome included); otherwise now, by the
   * contract's rule ({@link RecordOutcome#settle}) applied to what the relay reported.
   *
   * @param thrown what the relay threw, or {@code null} if it returned: the core fails unreported
   *     records with it
   */
  void end(Throwable thrown) {
    relayThrew = thrown;
    closed = true;
    if (settledByCore) {
      return;
    }
    if (!batch.claimHeld()) {
      settled(byId.values().stream().map(traced -> new RecordOutcome(traced.original(), RecordOutcome.Kind.CLAIM_LAPSED,
          null, null)).toList());
      return;
    }
    List<OutboxRecord> originals = byId.values().stream().map(Traced::original).toList();
    Throwable unreported = thrown != null ? thrown
        : new IllegalStateException("the relay returned without reporting the message");
    settled(RecordOutcome.settle(batch.ordering(), originals, record -> {
      Report report = byId.get(record.id()).report().get();
      return report == null ? null : new RecordOutcome.Report(report.confirmed(), report.cause(), report.at(),
          report.late() || report.at().isAfter(batch.deadline()));
    }, unreported));
  }

  /** Ends each record's span with its outcome, at the time its record was reported (or now, if it was not). */
  private void settled(List<RecordOutcome> outcomes) {
    for (RecordOutcome outcome : outcomes) {
      Traced traced = byId.get(outcome.record().id());
      if (traced == null || !traced.ended().compareAndSet(false, true)) {
        continue;
      }
      Instant at = outcome.reportedAt() != null ? outcome.reportedAt() : Instant.now();
      Throwable cause = outcome.cause();
      switch (outcome.kind()) {
        case CONFIRMED -> end(traced, SpanNames.OUTCOME_CONFIRMED, StatusCode.OK, null, null, at);
        case FAILED -> end(traced, SpanNames.OUTCOME_FAILED, StatusCode.ERROR, Failures.describe(cause), cause, at);
        // Not reported because the relay threw: it failed with what the relay threw, as the contract says.
        case UNREPORTED -> end(traced, cause != null && cause == relayThrew ? SpanNames.OUTCOME_FAILED
            : SpanNames.OUTCOME_UNREPORTED, StatusCode.ERROR, cause != null && cause == relayThrew
            ? Failures.describe(cause) : "the relay did not report the message: it counts as failed", cause, at);
        case REPORTED_LATE -> end(traced, SpanNames.OUTCOME_LATE, StatusCode.ERROR, "reported after the batch's"
            + " deadline: the report is ignored and the message counts as failed", cause, at);
        case HELD_BACK -> end(traced, SpanNames.OUTCOME_HELD_BACK, StatusCode.UNSET, null, null, at);
        case CONFIRMATION_IGNORED -> end(traced, SpanNames.OUTCOME_CONFIRMATION_IGNORED, StatusCode.ERROR, "confirmed"
            + " after an earlier message of its ordering unit did not go through: the message stays pending and is"
            + " sent again", null, at);
        case CLAIM_LAPSED -> end(traced, SpanNames.OUTCOME_CLAIM_LAPSED, StatusCode.ERROR, "the worker's claim of the"
            + " partition lapsed: nothing of this batch is committed and the message goes out again", null, at);
        case ROLLED_BACK -> end(traced, SpanNames.OUTCOME_ROLLED_BACK, StatusCode.ERROR, "the batch's transaction"
            + " rolled back: nothing of it is committed and the message goes out again", null, at);
        case COMMIT_UNKNOWN -> end(traced, SpanNames.OUTCOME_COMMIT_UNKNOWN, StatusCode.ERROR, "the outcome of the"
            + " batch's commit is unknown: the message may go out again", null, at);
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

  /** The core's record for one handed on, or the record itself if the batch has no such id. */
  private OutboxRecord original(OutboxRecord record) {
    Traced traced = record == null ? null : byId.get(record.id());
    return traced == null ? record : traced.original();
  }
}
