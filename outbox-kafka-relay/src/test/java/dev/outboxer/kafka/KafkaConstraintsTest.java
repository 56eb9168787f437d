package dev.outboxer.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.OutboxRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The publish-time size check against Kafka's own count of the record the relay sends: for the
 * largest relay headers (the longest type, id, partition and fencing token) it must be Kafka's
 * number exactly, so that it refuses what the producer would refuse and nothing it would accept.
 */
class KafkaConstraintsTest {

  /** 255 characters of 4 UTF-8 bytes: the longest type the core stores. */
  private static final String LONGEST_TYPE = "\uD83D\uDCE6".repeat(255);

  @ParameterizedTest(name = "{0} headers of {1} / {2} characters, key {3}, payload {4}")
  @CsvSource({
    "0, 0, 0, , 0",
    "1, 10, 100, order-1, 1000",
    "3000, 3, 0, order-\u00e9\u00e9, 900000",
    "21845, 3, 0, k, 974848",
    "1, 200, 65000, , 500",
    "40, 80, 1500, \u4e2d\u6587, 70",
  })
  void theSizeIsKafkasOwnCountOfTheRecordWithTheLargestRelayHeaders(int headerCount,
      int nameLength, int valueLength, String groupKey, int payloadBytes) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; headers.size() < headerCount; i++) {
      String name = "h" + i;
      headers.put(name + "n".repeat(Math.max(0, nameLength - name.length())),
          "\u00e9".repeat(valueLength / 2) + "v".repeat(valueLength % 2));
    }
    OutboxRecord worst = new OutboxRecord(Long.MAX_VALUE, "orders", Integer.MAX_VALUE, groupKey,
        LONGEST_TYPE, "application/json; charset=utf-8", new byte[payloadBytes], headers, 0,
        Instant.now());
    ProducerRecord<String, byte[]> mapped =
        RecordMapping.toProducerRecord("orders-topic", worst, Long.MAX_VALUE);
    int kafka = AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE,
        CompressionType.NONE,
        mapped.key() == null ? null : mapped.key().getBytes(StandardCharsets.UTF_8),
        mapped.value(), mapped.headers().toArray());

    KafkaConstraints constraints = new KafkaConstraints("orders", 1_048_576, "max.request.size");
    long headerRecordBytes = headers.entrySet().stream()
        .mapToLong(header -> KafkaConstraints.framed(KafkaConstraints.utf8Length(header.getKey()))
            + KafkaConstraints.framed(KafkaConstraints.utf8Length(header.getValue())))
        .sum();
    assertThat(constraints.recordBytes(groupKey, worst.contentType(), payloadBytes,
        headers.size(), headerRecordBytes)).isEqualTo(kafka);

    boolean fits = kafka <= 1_048_576;
    assertThat(constraints.checkMessage(groupKey, worst.contentType(), payloadBytes, headers))
        .as("refused exactly when Kafka's count exceeds max.request.size (%s bytes)", kafka)
        .matches(refusal -> fits == (refusal == null), fits ? "null" : "a refusal");
  }
}
