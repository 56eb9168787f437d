package dev.outboxer.testing;

import dev.outboxer.spi.OutboxRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes outbox records as the core would hand them to a relay, with increasing ids, for a relay's
 * tests with {@link TestRelayBatch}. Type {@code OrderPaid}, created now, no attempts yet.
 */
public final class OutboxRecords {

  private final String outbox;
  private final AtomicLong ids;

  /** @param outbox the outbox the records belong to; ids start at 1 */
  public OutboxRecords(String outbox) {
    this(outbox, 0);
  }

  /** Ids start after {@code lastId}: tests sharing a FIFO queue keep them apart (deduplication). */
  public OutboxRecords(String outbox, long lastId) {
    this.outbox = outbox;
    this.ids = new AtomicLong(lastId);
  }

  /** A record with a JSON payload naming its id and key. */
  public OutboxRecord next(int partition, String groupKey) {
    long id = ids.incrementAndGet();
    String key = groupKey == null ? "null" : "\"" + groupKey + "\"";
    String json = "{\"id\":" + id + ",\"key\":" + key + "}";
    return record(id, partition, groupKey, "application/json",
        json.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  /** A record with the given headers and a JSON payload naming its id. */
  public OutboxRecord next(int partition, String groupKey, Map<String, String> headers) {
    long id = ids.incrementAndGet();
    return record(id, partition, groupKey, "application/json",
        ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8), headers);
  }

  /** A record with the given content type and payload. */
  public OutboxRecord next(int partition, String groupKey, String contentType, byte[] payload) {
    return record(ids.incrementAndGet(), partition, groupKey, contentType, payload, Map.of());
  }

  private OutboxRecord record(long id, int partition, String groupKey, String contentType,
      byte[] payload, Map<String, String> headers) {
    return new OutboxRecord(id, outbox, partition, groupKey, "OrderPaid", contentType, payload,
        headers, 0, Instant.now());
  }
}
