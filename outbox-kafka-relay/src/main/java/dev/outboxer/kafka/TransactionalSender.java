package dev.outboxer.kafka;

import dev.outboxer.OutboxException;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;

/**
 * {@code fencing=transactional}: one transactional producer per outbox partition, with {@code
 * transactional.id} = prefix + partition, the same on every node. Creating it ({@code
 * initTransactions}) fences every older producer of that id, on any node: the broker aborts its
 * open transaction and refuses its later sends and commits. Since a node only sends for a
 * partition it has just claimed, the producer of the newest claim fences those of older claims.
 *
 * <p>Each batch is sent in one transaction and committed before {@code relay} returns; the records
 * are confirmed only after the commit succeeded. A record the broker or producer refuses for what
 * it is (too large, invalid) aborts the transaction; it is reported failed, its unit is held back,
 * and the rest is sent again in a new transaction, as often as records are refused and the batch's
 * deadline allows: every aborted transaction reports one record failed, so a batch of <i>n</i>
 * records takes at most <i>n</i> + 1 transactions (one more if its producer is replaced). A batch
 * with many refused records costs one transaction each, but the healthy records of other units
 * are still sent and confirmed, not charged an attempt. A fenced producer is closed and replaced once per batch, and only while the batch's claim
 * holds: the replacement fences the other node's producer in turn. So a partition that moves back
 * to a node which relayed it before costs that node one refused send and a new producer.
 *
 * <p>Thread-safe: a producer is used by one partition worker at a time (the core relays one batch
 * per partition at a time); the map of producers is concurrent.
 */
final class TransactionalSender implements KafkaRelay.BatchSender {

  private static final System.Logger LOG = System.getLogger(TransactionalSender.class.getName());

  private final KafkaRelayConfig settings;
  private final SendFailures failures;
  private final Function<Map<String, Object>, Producer<String, byte[]>> factory;
  private final ConcurrentMap<Integer, Producer<String, byte[]>> producers =
      new ConcurrentHashMap<>();
  private volatile boolean closed;

  TransactionalSender(KafkaRelayConfig settings,
      Function<Map<String, Object>, Producer<String, byte[]>> factory) {
    this.settings = settings;
    this.failures = new SendFailures(settings);
    this.factory = factory;
  }

  @Override
  public void send(RelayBatch batch, long deadline) throws InterruptedException {
    int partition = batch.partition();
    Set<Long> failedIds = new HashSet<>();
    boolean replaced = false;
    for (int round = 1; ; round++) {
      if (!batch.claimHeld() || deadline - System.nanoTime() <= 0) {
        return; // nothing more may be sent; what is unreported counts as failed or held back
      }
      List<OutboxRecord> records = batch.records().stream()
          .filter(record -> !failedIds.contains(record.id()) && !batch.heldBack(record))
          .toList();
      if (records.isEmpty()) {
        return;
      }
      // No fixed cap on rounds: records left unreported when relay returns or throws are charged
      // an attempt (the Relay contract), so stopping after a few refused records would charge the
      // healthy records of other units, and kill them with max-attempts=1. Every round that does
      // not end the batch fails one record or replaces the producer once, and the deadline above
      // bounds the time.
      if (round > batch.records().size() + 2) {
        throw new IllegalStateException("Outbox '" + settings.outbox() + "', partition "
            + partition + ": " + (round - 1) + " Kafka transactions for a batch of "
            + batch.records().size() + " records, each refusing or fencing none. Indicates a bug.");
      }
      Producer<String, byte[]> producer = producer(partition);
      TransactionRound.Result result;
      try {
        result = new TransactionRound(settings, failures, producer, batch).run(records, deadline);
      } catch (InterruptException | InterruptedException e) {
        // The worker gave up on the batch (its deadline passed): the transaction stays open, so
        // the producer cannot begin the next one; a new producer aborts it when it initialises.
        Thread.interrupted(); // cleared, as a thrown InterruptedException implies
        discard(partition, producer);
        InterruptedException interrupted = new InterruptedException("The kafka relay of outbox '"
            + settings.outbox() + "' was interrupted during a batch of partition " + partition);
        interrupted.initCause(e);
        throw interrupted;
      }
      switch (result.kind()) {
        case COMMITTED -> {
          // Confirmed only now, and only while the claim holds: a batch whose claim lapsed cannot
          // commit in the database, and the next owner sends the records again (duplicates).
          if (batch.claimHeld()) {
            records.forEach(batch::confirm);
          }
          return;
        }
        case CLAIM_LOST -> {
          abort(partition, producer);
          return;
        }
        case TIMED_OUT -> {
          // Records still in flight: closing the producer abandons its transaction, which the
          // next producer of this partition aborts when it initialises.
          discard(partition, producer);
          return;
        }
        case RECORD_FAILED -> {
          abort(partition, producer);
          batch.fail(result.record(), failures.describe(result.cause()));
          failedIds.add(result.record().id());
        }
        case FENCED -> {
          discard(partition, producer);
          if (!batch.claimHeld()) {
            throw fenced(batch, result.cause(), "this node's claim of the partition lapsed, so it "
                + "sends nothing more; the node holding the claim now delivers the records");
          }
          if (replaced) {
            throw fenced(batch, result.cause(), "the producer that replaced the first fenced one "
                + "in this batch was fenced too, so the batch is retried later. If this repeats, "
                + "another application may use the same transactional ids: give each its own "
                + settings.fullKey(KafkaSettings.TRANSACTIONAL_ID_PREFIX));
          }
          // Routine when the partition moved between nodes since this node's last batch of it:
          // the other node's producer fenced this one. Not worth a warning; a real conflict ends
          // in the exception above.
          LOG.log(Level.DEBUG, "Outbox '" + settings.outbox() + "', partition " + partition
              + ": the Kafka producer with transactional.id '" + settings.transactionalId(partition)
              + "' was fenced by a newer producer of that id (" + result.cause() + "); this batch "
              + "(fencing token " + batch.fencingToken() + ") still holds its claim, so a new "
              + "producer fences the other one and the batch is sent again");
          replaced = true;
        }
        case BLOCKED -> {
          discard(partition, producer);
          batch.fail(result.record(), result.cause());
          throw (RuntimeException) result.cause();
        }
        case BROKEN -> {
          discard(partition, producer);
          RuntimeException cause = failures.describe(result.cause());
          if (result.record() != null) {
            batch.fail(result.record(), cause);
          }
          throw cause;
        }
        default -> throw new IllegalStateException("Unknown round result " + result.kind()
            + ". Indicates a bug.");
      }
    }
  }

  @Override
  public void close(Duration wait) {
    closed = true;
    for (Integer partition : Set.copyOf(producers.keySet())) {
      Producer<String, byte[]> producer = producers.remove(partition);
      if (producer != null) {
        producer.close(wait);
      }
    }
  }

  /** The partition's producer, created and {@code initTransactions()}-ed on first use. */
  private Producer<String, byte[]> producer(int partition) {
    Producer<String, byte[]> existing = producers.get(partition);
    if (existing != null) {
      return existing;
    }
    String transactionalId = settings.transactionalId(partition);
    Map<String, Object> properties = new HashMap<>(settings.producerProperties());
    properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    // Each producer registers metrics under its client.id: one per partition avoids clashes.
    properties.put(ProducerConfig.CLIENT_ID_CONFIG,
        properties.get(ProducerConfig.CLIENT_ID_CONFIG) + "-" + partition);
    Producer<String, byte[]> producer;
    try {
      producer = factory.apply(properties);
    } catch (KafkaException e) {
      throw KafkaRelay.unusable(settings, e);
    }
    try {
      producer.initTransactions();
    } catch (KafkaException | IllegalStateException e) {
      producer.close(Duration.ZERO);
      throw new OutboxException("The Kafka producer of outbox '" + settings.outbox()
          + "', partition " + partition + " (transactional.id '" + transactionalId + "') could not "
          + "initialise its transactions at the brokers at " + properties.get(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) + " within max.block.ms (" + properties.get(
              ProducerConfig.MAX_BLOCK_MS_CONFIG) + " ms): " + e + ". Check that the brokers are "
          + "reachable and allow transactions (transaction.state.log.replication.factor and "
          + "min.isr must be met; with ACLs, WRITE on the transactional id); or set "
          + settings.fullKey(KafkaSettings.FENCING) + "=none (see the README)", e);
    }
    if (closed) {
      producer.close(Duration.ZERO);
      throw new IllegalStateException("The kafka relay of outbox '" + settings.outbox()
          + "' was closed while a batch started; Outboxer closes relays only at shutdown");
    }
    producers.put(partition, producer);
    return producer;
  }

  /** Aborts the producer's transaction; a producer that cannot abort is discarded. */
  private void abort(int partition, Producer<String, byte[]> producer) {
    try {
      producer.abortTransaction();
    } catch (KafkaException | IllegalStateException e) {
      discard(partition, producer);
    }
  }

  /**
   * Closes a producer that can no longer be used, without waiting: its open transaction, if any,
   * is aborted by the coordinator when the next producer of the partition initialises (or after
   * transaction.timeout.ms).
   */
  private void discard(int partition, Producer<String, byte[]> producer) {
    producers.remove(partition, producer);
    try {
      producer.close(Duration.ZERO);
    } catch (KafkaException e) {
      LOG.log(Level.DEBUG, "Closing a discarded Kafka producer failed", e);
    }
  }

  private OutboxException fenced(RelayBatch batch, Throwable cause, String consequence) {
    return new OutboxException("Outbox '" + settings.outbox() + "', partition "
        + batch.partition() + ": the Kafka producer with transactional.id '"
        + settings.transactionalId(batch.partition()) + "' was fenced by a newer producer of that "
        + "id (another node took the partition over), and the batch with fencing token "
        + batch.fencingToken() + " was aborted: " + consequence, cause);
  }
}
