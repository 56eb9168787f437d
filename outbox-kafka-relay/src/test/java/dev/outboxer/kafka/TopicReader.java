package dev.outboxer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a whole topic from the beginning with a real consumer (no group, all partitions,
 * {@code read_committed}). Public for other modules' tests, through this module's test-jar; not
 * part of any API.
 */
public final class TopicReader {

  /** One consumed record: where it landed and what the relay put in it. */
  public record Received(
      int partition, long offset, String key, byte[] value, Map<String, String> headers) {

    long outboxId() {
      return Long.parseLong(headers.get(OutboxKafkaHeaders.ID));
    }

    long fencingToken() {
      return Long.parseLong(headers.get(OutboxKafkaHeaders.FENCING_TOKEN));
    }
  }

  private TopicReader() {}

  /**
   * Polls until {@code atLeast} records were read and then until the end offsets, or until the
   * timeout; returns what it read, in partition then offset order.
   */
  public static List<Received> readAll(String bootstrap, String topic, int atLeast, Duration timeout) {
    return readAll(consumerConfig(bootstrap), topic, atLeast, timeout);
  }

  /** As {@link #readAll(String, String, int, Duration)}, also the records of aborted transactions. */
  static List<Received> readAllUncommitted(
      String bootstrap, String topic, int atLeast, Duration timeout) {
    Map<String, Object> config = new java.util.HashMap<>(consumerConfig(bootstrap));
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    return readAll(config, topic, atLeast, timeout);
  }

  private static List<Received> readAll(
      Map<String, Object> config, String topic, int atLeast, Duration timeout) {
    List<Received> received = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(info -> new TopicPartition(topic, info.partition()))
          .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline
          && (received.size() < atLeast || !reachedEnd(consumer, ends))) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          received.add(received(record));
        }
        if (received.size() >= atLeast) {
          ends = consumer.endOffsets(partitions);
        }
      }
    }
    received.sort((a, b) -> a.partition() != b.partition()
        ? Integer.compare(a.partition(), b.partition()) : Long.compare(a.offset(), b.offset()));
    return received;
  }

  /**
   * A consumer without group (assign, no commits) reading String keys and byte[] values, with
   * {@code isolation.level=read_committed} as the relay's fencing requires of consumers.
   */
  static Map<String, Object> consumerConfig(String bootstrap) {
    return Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
  }

  static Received received(ConsumerRecord<String, byte[]> record) {
    return new Received(record.partition(), record.offset(), record.key(), record.value(),
        headers(record));
  }

  static boolean reachedEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> ends) {
    return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
  }

  private static Map<String, String> headers(ConsumerRecord<?, ?> record) {
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(),
          header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }
}
