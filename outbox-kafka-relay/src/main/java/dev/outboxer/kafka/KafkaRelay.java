package dev.outboxer.kafka;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;

/**
 * The relay of one outbox. It checks the batch and its deadline and hands it to the sender of the
 * outbox's fencing mode: {@link TransactionalSender} (a transactional producer per outbox
 * partition) or {@link WaveSender} (one shared idempotent producer). Thread-safe: the outbox's
 * partition workers call it concurrently, one batch per partition at a time.
 */
final class KafkaRelay implements Relay {

  /** The longest {@link #close()} waits for records still in the producers. */
  static final Duration MAX_CLOSE_WAIT = Duration.ofSeconds(5);

  /** Sends one batch; {@code deadline} is the batch deadline on the {@link System#nanoTime()} clock. */
  interface BatchSender {
    void send(RelayBatch batch, long deadline) throws InterruptedException;

    void close(Duration wait);
  }

  private final KafkaRelayConfig settings;
  private final BatchSender sender;
  private volatile boolean closed;

  KafkaRelay(KafkaRelayConfig settings, BatchSender sender) {
    this.settings = settings;
    this.sender = sender;
  }

  static KafkaRelay create(KafkaRelayConfig settings) {
    if (settings.fencing() == KafkaSettings.Fencing.TRANSACTIONAL) {
      // Producers are created per outbox partition at its first batch: nothing connects yet.
      return new KafkaRelay(settings, new TransactionalSender(settings, KafkaProducer::new));
    }
    try {
      return new KafkaRelay(settings,
          new WaveSender(settings, new KafkaProducer<>(settings.producerProperties())));
    } catch (KafkaException e) {
      throw unusable(settings, e);
    }
  }

  /** The producer cannot be created from the settings (a bad address, class or value). */
  static OutboxConfigurationException unusable(KafkaRelayConfig settings, KafkaException e) {
    String key = "outbox." + settings.outbox() + "." + KafkaRelayConfig.PROVIDER;
    OutboxConfigurationException invalid = new OutboxConfigurationException(key,
        "The Kafka producer of outbox '" + settings.outbox() + "' cannot be created from the "
            + key + ".* settings: " + e.getMessage());
    invalid.initCause(e);
    return invalid;
  }

  /**
   * {@code false}: the relay sends through its Kafka producer (a Kafka transaction of its own (with {@code fencing=transactional}), not a JTA one) and touches no database, so its
   * batches run in plain database transactions where Outboxer has a data source.
   */
  @Override
  public boolean usesWorkerTransaction() {
    return false;
  }

  @Override
  public void relay(RelayBatch batch) throws InterruptedException {
    if (closed) {
      throw new IllegalStateException("The kafka relay of outbox '" + settings.outbox()
          + "' is closed; Outboxer closes relays only at shutdown. Indicates a bug.");
    }
    long deadline = System.nanoTime() + Duration.between(Instant.now(), batch.deadline()).toNanos();
    sender.send(batch, deadline);
  }

  /** Releases the producers, waiting at most {@link #MAX_CLOSE_WAIT} for records in flight. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      Duration wait = settings.deliveryTimeout().compareTo(MAX_CLOSE_WAIT) < 0
          ? settings.deliveryTimeout() : MAX_CLOSE_WAIT;
      sender.close(wait);
    }
  }

  @Override
  public String toString() {
    return "KafkaRelay[outbox=" + settings.outbox() + ", topic=" + settings.topic() + ", fencing="
        + settings.fencing().configValue() + "]";
  }
}
