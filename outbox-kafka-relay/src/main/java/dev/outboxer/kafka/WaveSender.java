package dev.outboxer.kafka;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * {@code fencing=none}: one idempotent producer for the outbox, shared by its partition workers
 * ({@link org.apache.kafka.clients.producer.KafkaProducer} is thread-safe), records confirmed as the
 * broker acknowledges them. Nothing but the batch's own claim checks keeps a stale node from
 * writing: a record already handed to the producer when the claim lapsed still reaches the topic.
 */
final class WaveSender implements KafkaRelay.BatchSender {

  private final KafkaRelayConfig settings;
  private final SendFailures failures;
  private final Producer<String, byte[]> producer;

  WaveSender(KafkaRelayConfig settings, Producer<String, byte[]> producer) {
    this.settings = settings;
    this.failures = new SendFailures(settings);
    this.producer = producer;
  }

  /*
   * Why waves rather than every record at once. The idempotent producer (acks=all, at most 5
   * requests in flight) guarantees per partition that *retries* neither reorder nor duplicate: the
   * broker accepts a producer's batches only in sequence-number order, so while the cluster is
   * merely unavailable (a leader change, a broker restart within delivery.timeout.ms) the records
   * of a key land in send order, once. It does not hold back later records after a *definitive*
   * failure of an earlier one: when a batch expires (delivery.timeout.ms) or is rejected for good
   * (RecordTooLargeException, InvalidRecordException, a policy violation...), the producer bumps
   * its epoch, resets the partition's sequence numbers and writes the batches queued behind it
   * (Kafka's TransactionManager.handleFailedBatch). Had record n+1 of a group been handed to
   * send() before n failed, n+1 could reach the topic ahead of n's retry; the consumer would see
   * n+1, n, n+1, and an id-based duplicate filter would then drop n (KafkaRelayTest shows it: sent
   * in one go, a3 lands after a2 was rejected as too large). A failure is only known when
   * its callback fires, so the next record of a unit may be submitted only once the previous one is
   * acknowledged. Each wave therefore holds at most one record per ordering unit (Waves), the next
   * wave starts when every outcome of this one is in, and held-back records are skipped. Records
   * of different units are pipelined freely within a wave: that is where the throughput comes
   * from. Failures detected inside send() (a record too large for the producer, a metadata
   * timeout) call the callback before send() returns, so heldBack already sees them.
   *
   * heldBack also answers true for every record once the batch's claim may have lapsed, so a
   * lapsed claim stops the waves; an acknowledgement that arrives after it is not confirmed.
   */
  @Override
  public void send(RelayBatch batch, long deadline) throws InterruptedException {
    for (List<OutboxRecord> wave : batch.waves()) {
      List<Future<RecordMetadata>> pending = new ArrayList<>(wave.size());
      for (OutboxRecord record : wave) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (!Instant.now().isBefore(batch.deadline())) {
          // What is left unreported counts as failed. Checked on the batch's own clock: an outcome
          // that came after the deadline was ignored, so heldBack cannot see such a failure.
          return;
        }
        Future<RecordMetadata> sent = producer.send(RecordMapping.toProducerRecord(
            settings.topic(), record, batch.fencingToken()), outcome(batch, record));
        RuntimeException blocked = failures.blockedFailure(sent);
        if (blocked != null) {
          // The producer could not take the record at all (unknown topic, full buffer): the next
          // send would block as long again, so the whole batch fails now, within one max.block.ms.
          SendFailures.await(pending, deadline);
          throw blocked;
        }
        pending.add(sent);
      }
      if (pending.isEmpty()) {
        continue;
      }
      // flush() sends now instead of after linger.ms and returns when every record sent so far
      // (by any worker) has its outcome, which takes at most delivery.timeout.ms. Only flush when
      // that still ends before the deadline; otherwise wait on our own futures, bounded by it.
      if (deadline - System.nanoTime() > settings.deliveryTimeout().toNanos()) {
        producer.flush();
      }
      if (!SendFailures.await(pending, deadline)) {
        return;
      }
    }
  }

  @Override
  public void close(Duration wait) {
    producer.close(wait);
  }

  private Callback outcome(RelayBatch batch, OutboxRecord record) {
    return (metadata, exception) -> {
      if (exception != null) {
        batch.fail(record, failures.describe(exception));
      } else if (batch.claimHeld()) {
        batch.confirm(record);
      }
      // else: delivered after the claim lapsed. Not confirmed: the batch cannot commit, and the
      // next owner sends the record again.
    };
  }
}
