package dev.outboxer.kafka;

import dev.outboxer.spi.OutboxRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Makes outbox records as the core would hand them to a relay, with increasing ids. */
final class OutboxRecords {

  private final String outbox;
  private final AtomicLong ids = new AtomicLong();

  OutboxRecords(String outbox) {
    this.outbox = outbox;
  }

  /** A record with a JSON payload naming its id and key. */
  OutboxRecord next(int partition, String groupKey) {
    long id = ids.incrementAndGet();
    String key = groupKey == null ? "null" : "\"" + groupKey + "\"";
    String json = "{\"id\":" + id + ",\"key\":" + key + "}";
    return record(id, partition, groupKey, json.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  OutboxRecord next(int partition, String groupKey, byte[] payload, Map<String, String> headers) {
    return record(ids.incrementAndGet(), partition, groupKey, payload, headers);
  }

  private OutboxRecord record(
      long id, int partition, String groupKey, byte[] payload, Map<String, String> headers) {
    return new OutboxRecord(id, outbox, partition, groupKey, "OrderPaid", "application/json",
        payload, headers, 0, Instant.now());
  }
}
