package dev.outboxer.kafka;

import dev.outboxer.kafka.TopicReader.Received;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A real consumer that follows a topic from its beginning while a test runs: every {@link #poll()}
 * adds what arrived since, so a test can wait for messages with Awaitility. Not thread-safe: poll
 * from the test thread only. Open it while the broker is up (it looks up the partitions).
 */
final class TopicTail implements AutoCloseable {

  private final KafkaConsumer<String, byte[]> consumer;
  private final List<TopicPartition> partitions;
  private final List<Received> received = new ArrayList<>();

  TopicTail(String bootstrap, String topic) {
    consumer = new KafkaConsumer<>(TopicReader.consumerConfig(bootstrap));
    partitions = consumer.partitionsFor(topic).stream()
        .map(info -> new TopicPartition(topic, info.partition()))
        .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Polls once (200 ms at most) and returns how many records were received in all. */
  int poll() {
    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
      received.add(TopicReader.received(record));
    }
    return received.size();
  }

  /** The ids of all records received so far. */
  Set<Long> ids() {
    return received.stream().map(Received::outboxId).collect(Collectors.toSet());
  }

  /** Whether this consumer has read every record the topic holds now. */
  boolean atEnd() {
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
    return TopicReader.reachedEnd(consumer, ends);
  }

  /** Everything received so far, in partition then offset order (a key's order on the topic). */
  List<Received> received() {
    return received.stream()
        .sorted(Comparator.comparingInt(Received::partition).thenComparingLong(Received::offset))
        .toList();
  }

  @Override
  public void close() {
    consumer.close();
  }
}
