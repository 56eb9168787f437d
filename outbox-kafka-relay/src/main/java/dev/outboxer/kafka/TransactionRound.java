package dev.outboxer.kafka;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;

/**
 * One Kafka transaction of a batch: begin, send the records, wait for every acknowledgement,
 * commit if all were acknowledged and the claim still holds. It reports nothing to the batch:
 * {@link TransactionalSender} decides from the {@link Result} what to confirm, fail or send again.
 *
 * <p>Records are handed to the producer all at once, not in waves (as {@link WaveSender} must): a
 * record sent after an earlier record of its unit failed can reach the log, but only inside this
 * transaction, which is then aborted, so a {@code read_committed} consumer never sees it.
 */
final class TransactionRound {

  /** How a round ended. */
  enum Kind {
    /** Committed: every record of the round is on the topic. */
    COMMITTED,
    /** A record was refused for what it is ({@link #record()}); the transaction must be aborted. */
    RECORD_FAILED,
    /** Another producer with the same transactional.id fenced this one: it is unusable. */
    FENCED,
    /** The claim lapsed before the commit: abort and send nothing more. */
    CLAIM_LOST,
    /** The batch deadline passed with records unacknowledged. */
    TIMED_OUT,
    /** The producer could not take a record at all (metadata, buffer) within max.block.ms. */
    BLOCKED,
    /** Anything else (a delivery timeout, an unavailable or forbidden topic, a failed commit). */
    BROKEN
  }

  /**
   * @param kind how the round ended
   * @param record the record the failure is attributed to, if any
   * @param cause the failure, if any
   */
  record Result(Kind kind, OutboxRecord record, Throwable cause) {}

  /** A failure reported by a send callback, in callback order. */
  private record Failure(OutboxRecord record, Exception cause) {}

  private final KafkaRelayConfig settings;
  private final SendFailures failures;
  private final Producer<String, byte[]> producer;
  private final RelayBatch batch;
  private final List<Failure> failed = new ArrayList<>();

  TransactionRound(KafkaRelayConfig settings, SendFailures failures,
      Producer<String, byte[]> producer, RelayBatch batch) {
    this.settings = settings;
    this.failures = failures;
    this.producer = producer;
    this.batch = batch;
  }

  Result run(List<OutboxRecord> records, long deadline) throws InterruptedException {
    try {
      producer.beginTransaction();
    } catch (KafkaException | IllegalStateException e) {
      return new Result(SendFailures.isFenced(e) ? Kind.FENCED : Kind.BROKEN, null, e);
    }
    List<Future<RecordMetadata>> pending = new ArrayList<>(records.size());
    RuntimeException thrown = null;
    for (OutboxRecord record : records) {
      if (batch.heldBack(record)) {
        // Only a lapsed claim holds back a record here: earlier failures were left out already.
        return new Result(Kind.CLAIM_LOST, null, null);
      }
      if (anyFailure()) {
        break; // this transaction will be aborted: sending more is wasted
      }
      if (deadline - System.nanoTime() <= 0) {
        return new Result(Kind.TIMED_OUT, null, null);
      }
      Future<RecordMetadata> sent;
      try {
        sent = producer.send(
            RecordMapping.toProducerRecord(settings.topic(), record, batch.fencingToken()),
            (metadata, exception) -> {
              if (exception != null) {
                fail(record, exception);
              }
            });
      } catch (KafkaException | IllegalStateException e) {
        // The producer refuses sends after a failure of this transaction (the failing record's
        // callback may not have run yet) or after it was fenced.
        thrown = e;
        break;
      }
      RuntimeException blocked = failures.blockedFailure(sent);
      if (blocked != null) {
        return new Result(Kind.BLOCKED, record, blocked);
      }
      pending.add(sent);
    }
    // flush() sends at once instead of after linger.ms and returns when every record has its
    // outcome (delivery.timeout.ms at most). Only when that still ends before the deadline;
    // otherwise wait on the futures, bounded by it.
    if (thrown == null && !anyFailure()
        && deadline - System.nanoTime() > settings.deliveryTimeout().toNanos()) {
      producer.flush();
    }
    if (!SendFailures.await(pending, deadline)) {
      return new Result(Kind.TIMED_OUT, null, null);
    }
    Result failure = classifyFailures(thrown);
    if (failure != null) {
      return failure;
    }
    if (!batch.claimHeld()) {
      return new Result(Kind.CLAIM_LOST, null, null);
    }
    try {
      // The broker refuses the commit if a producer with our transactional.id was initialised
      // since our transaction began: a stale node's records are then aborted, never visible to
      // read_committed consumers.
      producer.commitTransaction();
    } catch (KafkaException | IllegalStateException e) {
      return new Result(SendFailures.isFenced(e) ? Kind.FENCED : Kind.BROKEN, null, e);
    }
    return new Result(Kind.COMMITTED, null, null);
  }

  /**
   * Fenced beats everything (the producer is unusable); then the first record refused for what it
   * is, in callback order (records failed only because the transaction was already failing come
   * after it); then the first failure of any kind.
   */
  private synchronized Result classifyFailures(RuntimeException thrown) {
    if (thrown != null && SendFailures.isFenced(thrown)) {
      return new Result(Kind.FENCED, null, thrown);
    }
    for (Failure failure : failed) {
      if (SendFailures.isFenced(failure.cause())) {
        return new Result(Kind.FENCED, null, failure.cause());
      }
    }
    for (Failure failure : failed) {
      if (SendFailures.isRecordLevel(failure.cause())) {
        return new Result(Kind.RECORD_FAILED, failure.record(), failure.cause());
      }
    }
    if (!failed.isEmpty()) {
      return new Result(Kind.BROKEN, failed.get(0).record(), failed.get(0).cause());
    }
    return thrown == null ? null : new Result(Kind.BROKEN, null, thrown);
  }

  private synchronized void fail(OutboxRecord record, Exception cause) {
    failed.add(new Failure(record, cause));
  }

  private synchronized boolean anyFailure() {
    return !failed.isEmpty();
  }
}
