package dev.outboxer.spi;

import dev.outboxer.Ordering;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What became of one record of a batch, as the core decided it: handed to the listeners of {@link
 * RelayBatch#whenSettled} once the batch's transaction ended, so that a {@link RelayInterceptor}
 * (tracing, audit) labels a record by the core's decision instead of working it out again.
 *
 * <p>{@link #settle} is the {@link Relay} contract's rule, written once: per ordering unit, the
 * records up to the first one that did not go through count as confirmed, that one failed, the
 * rest of the unit is held back. The core applies it to every batch and then the outcome of the
 * batch's transaction ({@link Kind#CLAIM_LAPSED}, {@link Kind#ROLLED_BACK}, {@link
 * Kind#COMMIT_UNKNOWN}).
 *
 * @param record the record, as the batch holds it
 * @param kind what became of it
 * @param cause why it did not go through, for {@link Kind#FAILED}, {@link Kind#UNREPORTED} (what
 *     the relay threw, or a stand-in saying it returned without a report) and {@link
 *     Kind#REPORTED_LATE}; otherwise {@code null}
 * @param reportedAt when the relay reported it (also a late or ignored report); {@code null} if it did not
 */
public record RecordOutcome(OutboxRecord record, Kind kind, Throwable cause, Instant reportedAt) {

  /** What became of a record. */
  public enum Kind {
    /** The relay confirmed it and the batch committed: delivered, and deleted from the outbox. */
    CONFIRMED,
    /** The relay reported it failed: an attempt is charged, and it is retried after its backoff or dies. */
    FAILED,
    /** The relay returned (or threw, or timed out) without reporting it: it counts as failed, an attempt charged. */
    UNREPORTED,
    /** The relay reported it after the batch's deadline: the report is ignored and it counts as failed. */
    REPORTED_LATE,
    /** An earlier record of its ordering unit did not go through: it stays pending, untouched, and goes again. */
    HELD_BACK,
    /** Confirmed after an earlier record of its unit did not go through: ignored; it stays pending and goes again. */
    CONFIRMATION_IGNORED,
    /** The worker's claim of the partition lapsed while the relay had the batch: nothing of it is committed. */
    CLAIM_LAPSED,
    /**
     * The batch's transaction rolled back (the relay marked it for rollback, or the commit failed): nothing of
     * it is committed, and the record goes again; failures the core could record alone are {@link #FAILED}.
     */
    ROLLED_BACK,
    /** The outcome of the batch's commit is unknown: the record may have been settled, or may go again. */
    COMMIT_UNKNOWN
  }

  /** Checks the arguments. */
  public RecordOutcome {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(kind, "kind");
  }

  /**
   * What the relay reported for one record.
   *
   * @param confirmed whether it confirmed (else it failed)
   * @param cause the failure's cause, {@code null} for a confirmation
   * @param at when
   * @param late whether the report came after the batch ended, and was ignored
   */
  public record Report(boolean confirmed, Throwable cause, Instant at, boolean late) {}

  /**
   * The contract's rule, applied to what a relay reported.
   *
   * @param ordering the batch's ordering, for its ordering units ({@link OrderingUnits})
   * @param records the batch's records, in order
   * @param reports the first report of each record, or {@code null} if none
   * @param unreportedCause the cause of a record without a counted report: what the relay threw, or a stand-in
   * @return one outcome per record, in order: {@link Kind#CONFIRMED}, {@link Kind#FAILED}, {@link Kind#UNREPORTED},
   *     {@link Kind#REPORTED_LATE}, {@link Kind#HELD_BACK} or {@link Kind#CONFIRMATION_IGNORED}
   */
  public static List<RecordOutcome> settle(Ordering ordering, List<OutboxRecord> records,
      Function<OutboxRecord, Report> reports, Throwable unreportedCause) {
    Set<Object> brokenUnits = new HashSet<>();
    List<RecordOutcome> outcomes = new ArrayList<>(records.size());
    for (OutboxRecord record : records) {
      Report report = reports.apply(record);
      Report counted = report == null || report.late() ? null : report;
      Instant at = report == null ? null : report.at();
      Object unit = OrderingUnits.unitOf(ordering, record);
      if (unit != null && brokenUnits.contains(unit)) {
        outcomes.add(new RecordOutcome(record, counted != null && counted.confirmed() ? Kind.CONFIRMATION_IGNORED
            : Kind.HELD_BACK, null, at));
        continue;
      }
      if (counted != null && counted.confirmed()) {
        outcomes.add(new RecordOutcome(record, Kind.CONFIRMED, null, at));
        continue;
      }
      if (counted != null) {
        outcomes.add(new RecordOutcome(record, Kind.FAILED, counted.cause(), at));
      } else if (report != null) {
        outcomes.add(new RecordOutcome(record, Kind.REPORTED_LATE, unreportedCause, at));
      } else {
        outcomes.add(new RecordOutcome(record, Kind.UNREPORTED, unreportedCause, null));
      }
      if (unit != null) {
        brokenUnits.add(unit);
      }
    }
    return outcomes;
  }

  /**
   * @param kind another kind
   * @return this outcome with that kind; the cause kept only where the new kind has one
   */
  public RecordOutcome as(Kind kind) {
    boolean keepsCause = kind == Kind.FAILED || kind == Kind.UNREPORTED || kind == Kind.REPORTED_LATE;
    return new RecordOutcome(record, kind, keepsCause ? cause : null, reportedAt);
  }

  /** @return whether the relay's report of this record (or its absence) counts as a failure, charged an attempt */
  public boolean charged() {
    return kind == Kind.FAILED || kind == Kind.UNREPORTED || kind == Kind.REPORTED_LATE;
  }
}
