package dev.outboxer.kafka;

import dev.outboxer.spi.OutboxRecord;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Maps an outbox record to a Kafka record: key = group key ({@code null} stays {@code null}, so
 * Kafka spreads those records over the partitions), value = payload bytes, headers = the message's
 * own headers plus the {@link OutboxKafkaHeaders}. The timestamp is left to the producer (send
 * time): a retried or revived message may be older than the topic's accepted timestamp range.
 */
final class RecordMapping {

  private RecordMapping() {}

  /**
   * @param fencingToken the token of the batch's claim, sent as {@link
   *     OutboxKafkaHeaders#FENCING_TOKEN}
   */
  static ProducerRecord<String, byte[]> toProducerRecord(
      String topic, OutboxRecord record, long fencingToken) {
    RecordHeaders headers = new RecordHeaders();
    for (Map.Entry<String, String> header : record.headers().entrySet()) {
      // Reserved names are rejected at publish; skipping them here keeps ours unambiguous.
      if (!header.getKey().startsWith(OutboxKafkaHeaders.RESERVED_PREFIX)) {
        headers.add(header.getKey(), utf8(header.getValue()));
      }
    }
    headers.add(OutboxKafkaHeaders.ID, utf8(Long.toString(record.id())));
    headers.add(OutboxKafkaHeaders.TYPE, utf8(record.type()));
    headers.add(OutboxKafkaHeaders.OUTBOX, utf8(record.outbox()));
    if (record.groupKey() != null) {
      headers.add(OutboxKafkaHeaders.GROUP_KEY, utf8(record.groupKey()));
    }
    headers.add(OutboxKafkaHeaders.CONTENT_TYPE, utf8(record.contentType()));
    headers.add(OutboxKafkaHeaders.PARTITION, utf8(Integer.toString(record.partition())));
    headers.add(OutboxKafkaHeaders.FENCING_TOKEN, utf8(Long.toString(fencingToken)));
    return new ProducerRecord<>(topic, null, null, record.groupKey(), record.payload(), headers);
  }

  private static byte[] utf8(String value) {
    return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
  }
}
