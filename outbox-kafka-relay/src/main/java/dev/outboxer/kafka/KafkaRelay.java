package dev.outboxer.kafka;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxException;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The relay of one outbox: one idempotent producer, shared by the outbox's partition workers
 * ({@link KafkaProducer} is thread-safe; this class keeps no other mutable state).
 */
final class KafkaRelay implements Relay {

  /** The longest {@link #close()} waits for records still in the producer. */
  static final Duration MAX_CLOSE_WAIT = Duration.ofSeconds(5);

  private final KafkaRelaySettings settings;
  private final Producer<String, byte[]> producer;
  private volatile boolean closed;

  KafkaRelay(KafkaRelaySettings settings, Producer<String, byte[]> producer) {
    this.settings = settings;
    this.producer = producer;
  }

  static KafkaRelay create(KafkaRelaySettings settings) {
    try {
      return new KafkaRelay(settings, new KafkaProducer<>(settings.producerProperties()));
    } catch (KafkaException e) {
      String key = "outbox." + settings.outbox() + "." + KafkaRelaySettings.PROVIDER;
      OutboxConfigurationException invalid = new OutboxConfigurationException(key,
          "The Kafka producer of outbox '" + settings.outbox() + "' cannot be created from the "
              + key + ".* settings: " + e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
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
   */
  @Override
  public void relay(RelayBatch batch) throws InterruptedException {
    if (closed) {
      throw new IllegalStateException("The kafka relay of outbox '" + settings.outbox()
          + "' is closed; Outboxer closes relays only at shutdown. Indicates a bug.");
    }
    long deadline = System.nanoTime() + Duration.between(Instant.now(), batch.deadline()).toNanos();
    for (List<OutboxRecord> wave : Waves.of(batch.ordering(), batch.records())) {
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
        Future<RecordMetadata> sent = producer.send(
            RecordMapping.toProducerRecord(settings.topic(), record), outcome(batch, record));
        RuntimeException blocked = blockedFailure(sent);
        if (blocked != null) {
          // The producer could not take the record at all (unknown topic, full buffer): the next
          // send would block as long again, so the whole batch fails now, within one max.block.ms.
          await(pending, deadline);
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
      if (!await(pending, deadline)) {
        return;
      }
    }
  }

  /** Releases the producer, waiting at most {@link #MAX_CLOSE_WAIT} for records in flight. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      Duration wait = settings.deliveryTimeout().compareTo(MAX_CLOSE_WAIT) < 0
          ? settings.deliveryTimeout() : MAX_CLOSE_WAIT;
      producer.close(wait);
    }
  }

  @Override
  public String toString() {
    return "KafkaRelay[outbox=" + settings.outbox() + ", topic=" + settings.topic() + "]";
  }

  private Callback outcome(RelayBatch batch, OutboxRecord record) {
    return (metadata, exception) -> {
      if (exception == null) {
        batch.confirm(record);
      } else {
        batch.fail(record, describe(exception));
      }
    };
  }

  /** Waits for the futures until the deadline; {@code false} if it passed first. */
  private static boolean await(List<Future<RecordMetadata>> pending, long deadline)
      throws InterruptedException {
    for (Future<RecordMetadata> future : pending) {
      try {
        future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        // reported by the callback, which runs before the future completes
      } catch (java.util.concurrent.TimeoutException e) {
        return false;
      }
    }
    return true;
  }

  /** The failure of a send that failed before it returned because the producer was blocked. */
  private RuntimeException blockedFailure(Future<RecordMetadata> sent) throws InterruptedException {
    if (!sent.isDone()) {
      return null;
    }
    try {
      sent.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof TimeoutException timeout ? describe(timeout) : null;
    }
  }

  /**
   * Turns the failures that concern the topic as a whole into messages that name it; record-level
   * failures keep Kafka's exception, whose class name tells the most.
   */
  private RuntimeException describe(Exception failure) {
    String brokers = String.valueOf(
        settings.producerProperties().get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
    String topicKey = settings.fullKey(KafkaRelaySettings.TOPIC);
    if (failure instanceof TimeoutException && String.valueOf(failure.getMessage())
        .contains("metadata")) {
      return new OutboxException("Kafka topic '" + settings.topic() + "' of outbox '"
          + settings.outbox() + "' is not available: it was not in the metadata of the brokers at "
          + brokers + " within max.block.ms (" + settings.producerProperties()
              .get(ProducerConfig.MAX_BLOCK_MS_CONFIG) + " ms). Either the topic does not exist "
          + "and the brokers do not auto-create it (create the topic, or check " + topicKey
          + "), or the brokers cannot be reached", failure);
    }
    if (failure instanceof UnknownTopicOrPartitionException) {
      return new OutboxException("Kafka topic '" + settings.topic() + "' of outbox '"
          + settings.outbox() + "' does not exist on the brokers at " + brokers + ": create it or "
          + "check " + topicKey, failure);
    }
    if (failure instanceof TimeoutException) {
      return new OutboxException("Kafka did not acknowledge a record for topic '"
          + settings.topic() + "' of outbox '" + settings.outbox() + "' in time: "
          + failure.getMessage(), failure);
    }
    return failure instanceof RuntimeException runtime ? runtime : new KafkaException(failure);
  }
}
