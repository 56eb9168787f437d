package dev.outboxer.testing;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OrderingUnits;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RecordOutcome;
import dev.outboxer.spi.RelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * A stand-in for the core's batch, for testing a relay on its own: the records, the outcomes
 * reported for them (first report wins; reports after {@link #end()} or after the deadline are
 * ignored, as in the core) and {@code heldBack} per ordering unit: the group key in GROUP mode (a
 * null key is a unit of its own), the whole batch in TOTAL, each record in NONE. A confirmation of
 * a held-back record is recorded as a {@linkplain #violations() contract violation}. Thread-safe.
 */
public final class TestRelayBatch implements RelayBatch {

  /** What happened to a record. */
  public sealed interface Outcome permits Confirmed, Failed {}

  /** The relay confirmed the record. */
  public record Confirmed() implements Outcome {}

  /** The relay reported the record failed. */
  public record Failed(Throwable cause) implements Outcome {}

  private final String outbox;
  private final int partition;
  private final Ordering ordering;
  private final List<OutboxRecord> records;
  private final Instant deadline;
  private final Map<Long, Integer> indexById = new HashMap<>();
  private final Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
  private final Map<Object, Integer> firstFailureByUnit = new ConcurrentHashMap<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<Long, RecordOutcome.Report> reports = new ConcurrentHashMap<>();
  private final List<Consumer<List<RecordOutcome>>> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean ended;
  private volatile boolean settled;
  private volatile long fencingToken = 1;
  private volatile boolean claimLost;

  public TestRelayBatch(String outbox, Ordering ordering, Instant deadline, List<OutboxRecord> records) {
    this.outbox = outbox;
    this.partition = records.get(0).partition();
    this.ordering = ordering;
    this.records = List.copyOf(records);
    this.deadline = deadline;
    for (int i = 0; i < this.records.size(); i++) {
      indexById.put(this.records.get(i).id(), i);
    }
  }

  public TestRelayBatch(Ordering ordering, List<OutboxRecord> records, Duration timeout) {
    this(records.get(0).outbox(), ordering, Instant.now().plus(timeout), records);
  }

  /** A batch whose deadline is a minute away. */
  public static TestRelayBatch of(Ordering ordering, OutboxRecord... records) {
    return new TestRelayBatch(ordering, List.of(records), Duration.ofMinutes(1));
  }

  @Override public String outbox() { return outbox; }
  @Override public int partition() { return partition; }
  @Override public Ordering ordering() { return ordering; }
  @Override public List<OutboxRecord> records() { return records; }
  @Override public Instant deadline() { return deadline; }
  @Override public long fencingToken() { return fencingToken; }
  @Override public boolean claimHeld() { return !claimLost; }

  /** Sets the token this batch reports (1 by default). */
  public TestRelayBatch fencingToken(long token) {
    this.fencingToken = token;
    return this;
  }

  /** Makes the claim lapse, as a worker paused past its lease would see it: every record is held back from now on. */
  public void loseClaim() {
    claimLost = true;
  }

  @Override
  public void confirm(OutboxRecord record) {
    if (heldBack(record)) {
      violations.add("confirmed " + record.id() + " after an earlier record of its unit failed");
    }
    report(record, new Confirmed());
  }

  @Override
  public void fail(OutboxRecord record, Throwable cause) {
    report(record, new Failed(Objects.requireNonNull(cause, "cause")));
  }

  @Override
  public boolean heldBack(OutboxRecord record) {
    if (claimLost) {
      return true;
    }
    Object unit = OrderingUnits.unitOf(ordering, record);
    Integer firstFailure = unit == null ? null : firstFailureByUnit.get(unit);
    return firstFailure != null && firstFailure < indexOf(record);
  }

  /** Ends the batch like the core does when {@code relay} returns: later reports are ignored. */
  public void end() {
    end(null);
  }

  /**
   * Ends the batch like the core does when {@code relay} returns or throws, and tells the {@linkplain #whenSettled
   * listeners} every record's outcome as the core would after a commit ({@link RecordOutcome#settle}; all {@link
   * RecordOutcome.Kind#CLAIM_LAPSED} after {@link #loseClaim()}). Only the first call tells them.
   *
   * @param thrown what the relay threw, or {@code null} if it returned
   */
  public void end(Throwable thrown) {
    ended = true;
    if (listeners.isEmpty() || settled) {
      return;
    }
    settled = true;
    List<RecordOutcome> outcomes = claimLost
        ? records.stream().map(record -> new RecordOutcome(record, RecordOutcome.Kind.CLAIM_LAPSED, null, null)).toList()
        : RecordOutcome.settle(ordering, records, record -> reports.get(record.id()), thrown != null ? thrown
            : new IllegalStateException("the relay returned without reporting an outcome"));
    listeners.forEach(listener -> listener.accept(outcomes));
  }

  @Override
  public boolean whenSettled(Consumer<List<RecordOutcome>> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return true;
  }

  /** The outcome reported for a record, or null if none was. */
  public Outcome outcome(OutboxRecord record) {
    return outcomes.get(record.id());
  }

  public Map<Long, Outcome> outcomes() {
    return Map.copyOf(outcomes);
  }

  public boolean confirmed(OutboxRecord record) {
    return outcome(record) instanceof Confirmed;
  }

  /** The cause the record failed with; fails the test if it did not fail. */
  public Throwable failure(OutboxRecord record) {
    if (outcome(record) instanceof Failed failed) {
      return failed.cause();
    }
    throw new AssertionError(record + " did not fail; its outcome is " + outcome(record));
  }

  public List<OutboxRecord> confirmed() {
    return records.stream().filter(this::confirmed).toList();
  }

  public List<OutboxRecord> failed() {
    return records.stream().filter(r -> outcome(r) instanceof Failed).toList();
  }

  /** Records not confirmed: what the core keeps pending (failed, held back or unreported). */
  public List<OutboxRecord> unconfirmed() {
    return records.stream().filter(r -> !confirmed(r)).toList();
  }

  public List<String> violations() {
    return violations;
  }

  @Override
  public String toString() {
    return records.stream()
        .map(r -> r.id() + "=" + (outcome(r) == null ? "-" : outcome(r).getClass().getSimpleName()))
        .collect(Collectors.joining(", ", "Batch[", "]"));
  }

  private void report(OutboxRecord record, Outcome outcome) {
    int index = indexOf(record);
    boolean late = ended || !Instant.now().isBefore(deadline);
    reports.putIfAbsent(record.id(), new RecordOutcome.Report(outcome instanceof Confirmed,
        outcome instanceof Failed failed ? failed.cause() : null, Instant.now(), late));
    if (!late
        && outcomes.putIfAbsent(record.id(), outcome) == null && outcome instanceof Failed
        && OrderingUnits.unitOf(ordering, record) != null) {
      firstFailureByUnit.merge(OrderingUnits.unitOf(ordering, record), index, Math::min);
    }
  }

  private int indexOf(OutboxRecord record) {
    Integer index = indexById.get(record.id());
    if (index == null || !records.get(index).equals(record)) {
      throw new IllegalArgumentException(record + " is not part of this batch");
    }
    return index;
  }
}
