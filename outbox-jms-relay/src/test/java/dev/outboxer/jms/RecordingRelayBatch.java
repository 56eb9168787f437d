package dev.outboxer.jms;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link RelayBatch} that records the outcome of each record, as the core's batch will: first
 * report wins, and a record is held back when an earlier record of its ordering unit failed (the
 * group key in GROUP mode, with a null key its own unit; the whole batch in TOTAL; each record
 * alone in NONE). Thread-safe.
 */
final class RecordingRelayBatch implements RelayBatch {

  /** What happened to a record. */
  sealed interface Outcome permits Confirmed, Failed {}

  record Confirmed() implements Outcome {}

  record Failed(Throwable cause) implements Outcome {}

  private final String outbox;
  private final Ordering ordering;
  private final List<OutboxRecord> records;
  private final Instant deadline;
  private final Map<Long, Outcome> outcomes = new LinkedHashMap<>();

  RecordingRelayBatch(String outbox, Ordering ordering, Instant deadline, List<OutboxRecord> records) {
    this.outbox = outbox;
    this.ordering = ordering;
    this.records = List.copyOf(records);
    this.deadline = deadline;
  }

  /** A batch whose deadline is a minute away. */
  static RecordingRelayBatch of(Ordering ordering, OutboxRecord... records) {
    return new RecordingRelayBatch(
        records[0].outbox(), ordering, Instant.now().plusSeconds(60), List.of(records));
  }

  @Override
  public String outbox() {
    return outbox;
  }

  @Override
  public int partition() {
    return 0;
  }

  @Override
  public Ordering ordering() {
    return ordering;
  }

  @Override
  public List<OutboxRecord> records() {
    return records;
  }

  @Override
  public Instant deadline() {
    return deadline;
  }

  @Override
  public synchronized void confirm(OutboxRecord record) {
    check(record);
    outcomes.putIfAbsent(record.id(), new Confirmed());
  }

  @Override
  public synchronized void fail(OutboxRecord record, Throwable cause) {
    check(record);
    outcomes.putIfAbsent(record.id(), new Failed(cause));
  }

  @Override
  public synchronized boolean heldBack(OutboxRecord record) {
    check(record);
    for (OutboxRecord earlier : records) {
      if (earlier.id() >= record.id()) {
        return false;
      }
      if (sameUnit(earlier, record) && outcomes.get(earlier.id()) instanceof Failed) {
        return true;
      }
    }
    return false;
  }

  private boolean sameUnit(OutboxRecord a, OutboxRecord b) {
    return switch (ordering) {
      case TOTAL -> true;
      case NONE -> false;
      case GROUP -> a.groupKey() != null && a.groupKey().equals(b.groupKey());
    };
  }

  private void check(OutboxRecord record) {
    if (!records.contains(record)) {
      throw new IllegalArgumentException(record + " is not part of this batch");
    }
  }

  synchronized Optional<Outcome> outcome(OutboxRecord record) {
    return Optional.ofNullable(outcomes.get(record.id()));
  }

  synchronized boolean confirmed(OutboxRecord record) {
    return outcomes.get(record.id()) instanceof Confirmed;
  }

  /** The cause the record failed with; fails the test if it did not fail. */
  synchronized Throwable failure(OutboxRecord record) {
    if (outcomes.get(record.id()) instanceof Failed failed) {
      return failed.cause();
    }
    throw new AssertionError(record + " did not fail; its outcome is " + outcomes.get(record.id()));
  }

  synchronized Map<Long, Outcome> outcomes() {
    return Map.copyOf(outcomes);
  }
}
