package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.StandardHeaders;
import dev.outboxer.sqs.QueueReader.Received;
import dev.outboxer.testing.TestRelayBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The relay against ElasticMQ in the test JVM, driven as partition workers would drive it. */
class SqsRelayTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(10);

  private final OutboxRecords records = new OutboxRecords("orders");

  static Relay relay(String queueUrl, Ordering ordering, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(SQS.relaySettings(queueUrl));
    settings.putAll(extra);
    return new SqsRelayProvider()
        .create(new RelayContext("orders", ordering, 4, RELAY_TIMEOUT, settings));
  }

  @Test
  void each_record_becomes_an_sqs_message_with_group_deduplication_id_body_and_attributes()
      throws Exception {
    String queue = SQS.createFifoQueue("mapping.fifo");
    OutboxRecord keyed = records.next(2, "order:42", Map.of("x-tenant", "acme", "trace.id", "t1"));
    OutboxRecord unkeyed = records.next(1, null);
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    OutboxRecord binary = records.next(0, "order:43", "application/octet-stream", bytes);
    OutboxRecord controlText =
        records.next(0, "order:44", "text/plain", "bell\u0007".getBytes(StandardCharsets.UTF_8));
    OutboxRecord oddKey = records.next(0, "order 45 ünïcode");
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP,
        List.of(keyed, unkeyed, binary, controlText, oddKey), RELAY_TIMEOUT).fencingToken(7);

    try (Relay relay = relay(queue, Ordering.GROUP, Map.of())) {
      relay.relay(batch);
      batch.end();
    }

    assertThat(batch.confirmed()).containsExactlyElementsOf(batch.records());
    QueueReader reader = new QueueReader(SQS.client(), queue);
    assertThat(reader.poll()).isEqualTo(5);
    Map<Long, Received> byId = reader.received().stream()
        .collect(Collectors.toMap(Received::outboxId, Function.identity()));

    Received first = byId.get(keyed.id());
    assertThat(first.body()).isEqualTo(keyed.payloadText());
    assertThat(first.groupId()).isEqualTo("order:42");
    assertThat(first.deduplicationId()).isEqualTo(Long.toString(keyed.id()));
    assertThat(first.attributes()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "x-tenant", "acme",
        "trace.id", "t1",
        StandardHeaders.ID, Long.toString(keyed.id()),
        StandardHeaders.OUTBOX, "orders",
        StandardHeaders.TYPE, "OrderPaid",
        StandardHeaders.CONTENT_TYPE, "application/json",
        StandardHeaders.PARTITION, "2",
        StandardHeaders.FENCING_TOKEN, "7",
        StandardHeaders.GROUP_KEY, "order:42"));
    assertThat(first.dataTypes()).containsEntry(StandardHeaders.ID, "Number")
        .containsEntry(StandardHeaders.PARTITION, "Number")
        .containsEntry(StandardHeaders.FENCING_TOKEN, "Number")
        .containsEntry(StandardHeaders.OUTBOX, "String")
        .containsEntry("x-tenant", "String");

    Received second = byId.get(unkeyed.id());
    assertThat(second.attributes()).doesNotContainKey(StandardHeaders.GROUP_KEY)
        .doesNotContainKey(SqsMessageAttributes.BODY_ENCODING);
    assertThat(second.groupId()).startsWith("outbox-ungrouped-");

    Received third = byId.get(binary.id());
    assertThat(third.attributes())
        .containsEntry(SqsMessageAttributes.BODY_ENCODING, SqsMessageAttributes.BASE64)
        .containsEntry(StandardHeaders.CONTENT_TYPE, "application/octet-stream");
    assertThat(Base64.getDecoder().decode(third.body())).isEqualTo(bytes);

    Received fourth = byId.get(controlText.id());
    assertThat(fourth.attributes())
        .containsEntry(SqsMessageAttributes.BODY_ENCODING, SqsMessageAttributes.BASE64);
    assertThat(new String(Base64.getDecoder().decode(fourth.body()), StandardCharsets.UTF_8))
        .isEqualTo("bell\u0007");

    Received fifth = byId.get(oddKey.id());
    assertThat(fifth.groupId()).as("a key SQS refuses as MessageGroupId is hashed")
        .matches("sha256-[0-9a-f]{64}");
    assertThat(fifth.groupKey()).isEqualTo("order 45 ünïcode");
  }
}
