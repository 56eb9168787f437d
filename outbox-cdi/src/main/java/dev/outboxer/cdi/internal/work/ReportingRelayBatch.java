package dev.outboxer.cdi.internal.work;

import dev.outboxer.Ordering;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.OrderingUnits;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RecordOutcome;
import dev.outboxer.spi.RelayBatch;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A batch handed to a relay, and the outcomes it reports. Reports are synchronised: relays may
 * report from send-callback threads. Once {@link #close() closed} (the relay returned, or the
 * deadline passed) later reports are ignored. Every way a relay can break its contract is handled
 * here and logged at WARNING, once per batch and kind, so that one faulty relay cannot fail a batch
 * or flood the log.
 */
final class ReportingRelayBatch implements RelayBatch {

  private static final Logger LOG = Logger.getLogger(ReportingRelayBatch.class.getName());

  private final String outbox;
  private final int partition;
  private final Ordering ordering;
  private final List<OutboxRecord> records;
  private final long fencingToken;
  private final Instant deadline;
  private final BooleanSupplier claimHeld;
  private final Map<Long, Integer> indexById = new HashMap<>();
  /** The first report of each record, by index; a late one marked so. */
  private final RecordOutcome.Report[] reports;
  private final List<Consumer<List<RecordOutcome>>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean settled = new AtomicBoolean();
  /** Per ordering unit, the index of its first failed record. */
  private final Map<Object, Integer> firstFailure = new HashMap<>();
  private final Set<String> warned = new HashSet<>();
  private boolean closed;
  private volatile boolean claimLost;

  /**
   * @param claimHeld whether the claim still holds (the worker's transaction is active and its
   *     lease has not ended); once it says no, the batch remembers it
   */
  ReportingRelayBatch(String outbox, int partition, Ordering ordering, List<OutboxRecord> records, long fencingToken,
      Instant deadline, BooleanSupplier claimHeld) {
    this.outbox = outbox;
    this.partition = partition;
    this.ordering = ordering;
    this.records = List.copyOf(records);
    this.fencingToken = fencingToken;
    this.deadline = deadline;
    this.claimHeld = claimHeld;
    this.reports = new RecordOutcome.Report[records.size()];
    for (int i = 0; i < records.size(); i++) {
      indexById.put(records.get(i).id(), i);
    }
  }

  @Override public String outbox() { return outbox; }
  @Override public int partition() { return partition; }
  @Override public Ordering ordering() { return ordering; }
  @Override public List<OutboxRecord> records() { return records; }
  @Override public long fencingToken() { return fencingToken; }
  @Override public Instant deadline() { return deadline; }

  @Override
  public boolean claimHeld() {
    if (claimLost) {
      return false;
    }
    if (!claimHeld.getAsBoolean()) {
      claimLost = true;
      return false;
    }
    return true;
  }

  @Override
  public synchronized void confirm(OutboxRecord record) {
    Integer index = indexOf(record, "confirm");
    if (index != null) {
      report(record, index, "confirmed", null);
    }
  }

  @Override
  public synchronized void fail(OutboxRecord record, Throwable cause) {
    Throwable given = cause == null ? new IllegalStateException("the relay gave no cause") : cause;
    Integer index = indexOf(record, "fail");
    if (index == null || !report(record, index, "failed", given)) {
      return;
    }
    Object unit = unitOf(records.get(index));
    if (unit != null) {
      firstFailure.merge(unit, index, Math::min);
    }
  }

  @Override
  public boolean heldBack(OutboxRecord record) {
    if (!claimHeld()) {
      return true;
    }
    synchronized (this) {
      // An ended batch (the relay returned, or the deadline passed and the worker closed it) ignores
      // every report, a failure too: the rest of a group must not go out after its earlier message may
      // have failed unseen. Checked against the clock as well, as the watchdog may be late to close it.
      if (closed || Instant.now().isAfter(deadline)) {
        return true;
      }
      Integer index = indexOf(record, "heldBack");
      if (index == null) {
        return true;
      }
      Object unit = unitOf(record);
      Integer failedAt = unit == null ? null : firstFailure.get(unit);
      return failedAt != null && failedAt < index;
    }
  }

  /** Freezes the outcomes. */
  synchronized void close() {
    closed = true;
  }

  /** Whether the claim was seen to lapse while the relay was working. */
  boolean claimLost() {
    return claimLost;
  }

  /**
   * Records the first report of a record: counted while the batch is open, remembered as late (for
   * the outcomes) once it ended; a second report is ignored.
   *
   * @param cause the failure's cause, {@code null} for a confirmation
   * @return whether the report counts
   */
  private boolean report(OutboxRecord record, int index, String what, Throwable cause) {
    if (closed) {
      if (reports[index] == null) {
        reports[index] = new RecordOutcome.Report(cause == null, cause, Instant.now(), true);
      }
      warnOnce("late", "Outbox '" + outbox + "', partition " + partition + ": the relay reported message " + record.id()
          + " " + what + " after its batch ended (relay returned or relay-timeout passed); the report is ignored and"
          + " the message counts as not delivered");
      return false;
    }
    if (reports[index] != null) {
      warnOnce("twice", "Outbox '" + outbox + "', partition " + partition + ": the relay reported message "
          + record.id() + " a second time (" + what + "); the first report stands");
      return false;
    }
    reports[index] = new RecordOutcome.Report(cause == null, cause, Instant.now(), false);
    return true;
  }

  /**
   * Applies the relay contract ({@link RecordOutcome#settle}): per ordering unit, records up to the
   * first one not confirmed count as confirmed; that one failed (with its reported cause, else
   * {@code unreportedCause}); the rest of the unit was held back and stays pending untouched.
   */
  synchronized Outcomes evaluate(Throwable unreportedCause) {
    List<RecordOutcome> settled = RecordOutcome.settle(ordering, records, record -> reports[indexById.get(record.id())],
        unreportedCause);
    List<OutboxRecord> confirmed = new ArrayList<>();
    List<Failure> failed = new ArrayList<>();
    List<OutboxRecord> heldBack = new ArrayList<>();
    for (RecordOutcome outcome : settled) {
      switch (outcome.kind()) {
        case CONFIRMED -> confirmed.add(outcome.record());
        case FAILED -> failed.add(new Failure(outcome.record(), outcome.cause(), true));
        case UNREPORTED, REPORTED_LATE -> failed.add(new Failure(outcome.record(), outcome.cause(), false));
        case CONFIRMATION_IGNORED -> {
          warnOnce("after-failure", "Outbox '" + outbox + "': the relay confirmed message " + outcome.record().id()
              + " after an earlier message of its group failed; it stays pending and is sent again in order"
              + " (a duplicate for the consumer)");
          heldBack.add(outcome.record());
        }
        default -> heldBack.add(outcome.record());
      }
    }
    return new Outcomes(confirmed, failed, heldBack, settled);
  }

  @Override
  public boolean whenSettled(Consumer<List<RecordOutcome>> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return true;
  }

  /**
   * Tells the listeners what became of the records, once the batch's transaction ended; only the first call counts.
   *
   * @param outcomes the contract's outcomes ({@link Outcomes#settled()}) as the transaction's outcome left them
   */
  void settled(List<RecordOutcome> outcomes) {
    if (!settled.compareAndSet(false, true)) {
      return;
    }
    for (Consumer<List<RecordOutcome>> listener : listeners) {
      try {
        listener.accept(outcomes);
      } catch (RuntimeException | LinkageError | StackOverflowError failure) {
        LOG.log(Level.WARNING, "Outbox '" + outbox + "', partition " + partition + ": a listener of the batch's"
            + " outcomes (a RelayInterceptor) failed: " + Failures.describe(failure) + "; the batch is not affected",
            Failures.loggable(failure));
      }
    }
  }

  private Object unitOf(OutboxRecord record) {
    return OrderingUnits.unitOf(ordering, record);
  }

  private Integer indexOf(OutboxRecord record, String call) {
    Integer index = record == null ? null : indexById.get(record.id());
    if (index == null) {
      warnOnce("foreign-" + call, "Outbox '" + outbox + "', partition " + partition + ": the relay called " + call
          + "() with " + (record == null ? "null" : "message " + record.id()) + ", which is not part of its batch;"
          + " ignored (a bug in the relay)");
    }
    return index;
  }

  private void warnOnce(String kind, String message) {
    if (warned.add(kind)) {
      LOG.warning(message);
    }
  }

  /**
   * A record that did not go through.
   *
   * @param reported whether the relay reported it failed (rather than leaving it unreported)
   */
  record Failure(OutboxRecord record, Throwable cause, boolean reported) {

    Failure(OutboxRecord record, Throwable cause) {
      this(record, cause, true);
    }
  }

  /**
   * @param settled every record's outcome under the contract, in order, before the transaction's outcome
   */
  record Outcomes(List<OutboxRecord> confirmed, List<Failure> failed, List<OutboxRecord> heldBack,
      List<RecordOutcome> settled) {}
}
