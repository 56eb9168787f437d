package dev.outboxer.cdi.internal.work;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.logging.Logger;

/**
 * A batch handed to a relay, and the outcomes it reports. Reports are synchronised: relays may
 * report from send-callback threads. Once {@link #close() closed} (the relay returned, or the
 * deadline passed) later reports are ignored.
 */
final class PartitionBatch implements RelayBatch {

  private static final Logger LOG = Logger.getLogger(PartitionBatch.class.getName());
  /** The ordering unit of every record in total mode. */
  private static final Object WHOLE_BATCH = new Object();

  private final String outbox;
  private final int partition;
  private final Ordering ordering;
  private final List<OutboxRecord> records;
  private final Instant deadline;
  private final Map<Long, Integer> indexById = new HashMap<>();
  private final Object[] outcomes;
  /** Per ordering unit, the index of its first failed record. */
  private final Map<Object, Integer> firstFailure = new HashMap<>();
  private boolean closed;

  PartitionBatch(String outbox, int partition, Ordering ordering, List<OutboxRecord> records, Instant deadline) {
    this.outbox = outbox;
    this.partition = partition;
    this.ordering = ordering;
    this.records = List.copyOf(records);
    this.deadline = deadline;
    this.outcomes = new Object[records.size()];
    for (int i = 0; i < records.size(); i++) {
      indexById.put(records.get(i).id(), i);
    }
  }

  @Override public String outbox() { return outbox; }
  @Override public int partition() { return partition; }
  @Override public Ordering ordering() { return ordering; }
  @Override public List<OutboxRecord> records() { return records; }
  @Override public Instant deadline() { return deadline; }
  // Interim until the fenced claim lands: the token is not yet taken from the database.
  @Override public long fencingToken() { return 1; }
  @Override public synchronized boolean claimHeld() { return !closed; }

  @Override
  public synchronized void confirm(OutboxRecord record) {
    int index = indexOf(record);
    if (!closed && outcomes[index] == null) {
      outcomes[index] = Confirmed.INSTANCE;
    }
  }

  @Override
  public synchronized void fail(OutboxRecord record, Throwable cause) {
    int index = indexOf(record);
    if (!closed && outcomes[index] == null) {
      outcomes[index] = new Failed(cause == null ? new IllegalStateException("the relay gave no cause") : cause);
      Object unit = unitOf(record);
      if (unit != null) {
        firstFailure.merge(unit, index, Math::min);
      }
    }
  }

  @Override
  public synchronized boolean heldBack(OutboxRecord record) {
    int index = indexOf(record);
    Object unit = unitOf(record);
    Integer failedAt = unit == null ? null : firstFailure.get(unit);
    return failedAt != null && failedAt < index;
  }

  /** Freezes the outcomes. */
  synchronized void close() {
    closed = true;
  }

  /**
   * Applies the relay contract: per ordering unit, records up to the first one not confirmed count
   * as confirmed; that one failed (with its reported cause, else {@code unreportedCause}); the rest
   * of the unit was held back and stays pending untouched.
   */
  synchronized Outcomes evaluate(Throwable unreportedCause) {
    Set<Object> brokenUnits = new HashSet<>();
    List<OutboxRecord> confirmed = new ArrayList<>();
    List<Failure> failed = new ArrayList<>();
    int heldBack = 0;
    for (int i = 0; i < records.size(); i++) {
      OutboxRecord record = records.get(i);
      Object unit = unitOf(record);
      if (unit != null && brokenUnits.contains(unit)) {
        if (outcomes[i] instanceof Confirmed) {
          LOG.warning("Outbox '" + outbox + "': the relay confirmed message " + record.id() + " after an earlier message"
              + " of its group failed; it stays pending and is sent again in order (a duplicate for the consumer)");
        }
        heldBack++;
        continue;
      }
      if (outcomes[i] instanceof Confirmed) {
        confirmed.add(record);
      } else {
        Throwable cause = outcomes[i] instanceof Failed reported ? reported.cause() : unreportedCause;
        failed.add(new Failure(record, cause));
        if (unit != null) {
          brokenUnits.add(unit);
        }
      }
    }
    return new Outcomes(confirmed, failed, heldBack);
  }

  private Object unitOf(OutboxRecord record) {
    return switch (ordering) {
      case GROUP -> record.groupKey();
      case TOTAL -> WHOLE_BATCH;
      case NONE -> null;
    };
  }

  private int indexOf(OutboxRecord record) {
    Objects.requireNonNull(record, "record");
    Integer index = indexById.get(record.id());
    if (index == null) {
      throw new IllegalArgumentException("Message " + record.id() + " is not part of this batch of outbox '" + outbox
          + "', partition " + partition);
    }
    return index;
  }

  private enum Confirmed { INSTANCE }

  private record Failed(Throwable cause) {}

  record Failure(OutboxRecord record, Throwable cause) {}

  record Outcomes(List<OutboxRecord> confirmed, List<Failure> failed, int heldBack) {}
}
