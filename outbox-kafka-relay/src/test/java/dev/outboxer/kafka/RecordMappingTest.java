package dev.outboxer.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.StandardHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class RecordMappingTest {

  private final OutboxRecords records = new OutboxRecords("orders");

  @Test
  void groupKeyBecomesTheRecordKeyAndOutboxFieldsBecomeHeaders() {
    OutboxRecord record = records.next(3, "order:42", "{}".getBytes(StandardCharsets.UTF_8),
        Map.of("trace-id", "abc", "outbox-id", "forged"));

    ProducerRecord<String, byte[]> mapped =
        RecordMapping.toProducerRecord("orders-topic", record, 17);

    assertThat(mapped.topic()).isEqualTo("orders-topic");
    assertThat(mapped.key()).isEqualTo("order:42");
    assertThat(mapped.value()).isEqualTo("{}".getBytes(StandardCharsets.UTF_8));
    assertThat(mapped.partition()).as("Kafka's partitioner picks it from the key").isNull();
    assertThat(mapped.timestamp()).isNull();
    assertThat(headers(mapped)).containsExactly(
        "trace-id=abc",
        "outbox-id=" + record.id(),
        "outbox-type=OrderPaid",
        "outbox-name=orders",
        "outbox-group-key=order:42",
        "outbox-content-type=application/json",
        "outbox-partition=3",
        "outbox-fencing-token=17");
  }

  @Test
  void nullGroupKeyStaysANullRecordKeyWithoutGroupHeader() {
    ProducerRecord<String, byte[]> mapped =
        RecordMapping.toProducerRecord("orders", records.next(0, null), 1);

    assertThat(mapped.key()).isNull();
    assertThat(mapped.headers().lastHeader(OutboxKafkaHeaders.GROUP_KEY)).isNull();
    assertThat(mapped.headers().lastHeader(OutboxKafkaHeaders.ID)).isNotNull();
  }

  @Test
  void theHeaderNamesAreTheStandardOnes() {
    assertThat(List.of(OutboxKafkaHeaders.ID, OutboxKafkaHeaders.GROUP_KEY, OutboxKafkaHeaders.OUTBOX,
            OutboxKafkaHeaders.TYPE, OutboxKafkaHeaders.CONTENT_TYPE, OutboxKafkaHeaders.PARTITION,
            OutboxKafkaHeaders.FENCING_TOKEN, OutboxKafkaHeaders.RESERVED_PREFIX))
        .containsExactly(StandardHeaders.ID, StandardHeaders.GROUP_KEY, StandardHeaders.OUTBOX,
            StandardHeaders.TYPE, StandardHeaders.CONTENT_TYPE, StandardHeaders.PARTITION,
            StandardHeaders.FENCING_TOKEN, StandardHeaders.RESERVED_PREFIX);
  }

  private static List<String> headers(ProducerRecord<String, byte[]> record) {
    List<String> headers = new ArrayList<>();
    for (Header header : record.headers()) {
      headers.add(header.key() + "=" + new String(header.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }
}
