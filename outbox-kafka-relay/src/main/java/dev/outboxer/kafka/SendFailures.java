package dev.outboxer.kafka;

import dev.outboxer.OutboxException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;

import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * How the relay reads the producer's failures: which concern one record, which mean the producer
 * was fenced, and how those that concern the topic as a whole are described to the operator.
 */
final class SendFailures {

  private final KafkaRelayConfig settings;

  SendFailures(KafkaRelayConfig settings) {
    this.settings = settings;
  }

  /**
   * Whether the failure belongs to the record itself (the broker or the producer refuses it for
   * what it is), so that sending it again cannot succeed and the other records can go on.
   */
  static boolean isRecordLevel(Throwable failure) {
    return failure instanceof RecordTooLargeException
        || failure instanceof RecordBatchTooLargeException
        || failure instanceof InvalidRecordException
        || failure instanceof CorruptRecordException;
  }

  /**
   * Whether the producer can no longer be used because another producer with its {@code
   * transactional.id} was initialised after it (or its producer id expired): only a new producer
   * can send again, and creating it fences the other one.
   */
  static boolean isFenced(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ProducerFencedException
          || cause instanceof InvalidProducerEpochException
          || cause instanceof InvalidPidMappingException) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** Waits for the futures until the deadline ({@link System#nanoTime()}); false if it passed. */
  static boolean await(List<Future<RecordMetadata>> pending, long deadline)
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

  /**
   * The failure of a send that failed before it returned because the producer was blocked (no
   * metadata for the topic within max.block.ms, a full buffer): the next send would block as long
   * again, so the caller fails the whole batch. {@code null} for any other send.
   */
  RuntimeException blockedFailure(Future<RecordMetadata> sent) throws InterruptedException {
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
  RuntimeException describe(Throwable failure) {
    String brokers = String.valueOf(
        settings.producerProperties().get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
    String topicKey = settings.fullKey(KafkaSettings.TOPIC);
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
