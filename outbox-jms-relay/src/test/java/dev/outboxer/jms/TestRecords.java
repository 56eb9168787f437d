package dev.outboxer.jms;

import dev.outboxer.spi.OutboxRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/** Builds the records a core worker would hand to the relay. */
final class TestRecords {

  static final String OUTBOX = "orders";

  private TestRecords() {}

  /** A JSON record of outbox {@value #OUTBOX}. */
  static OutboxRecord json(long id, String groupKey, String type, String json) {
    return json(id, groupKey, type, json, Map.of());
  }

  static OutboxRecord json(
      long id, String groupKey, String type, String json, Map<String, String> headers) {
    return new OutboxRecord(
        id,
        OUTBOX,
        0,
        groupKey,
        type,
        "application/json",
        json.getBytes(StandardCharsets.UTF_8),
        headers,
        0,
        Instant.parse("2026-12-02T10:00:00Z"));
  }

  static OutboxRecord binary(long id, String groupKey, String type, byte[] payload) {
    return new OutboxRecord(
        id, OUTBOX, 0, groupKey, type, "application/octet-stream", payload, Map.of(), 0,
        Instant.parse("2026-12-02T10:00:00Z"));
  }

  /** A record of type {@code Note}, group {@code g}, with the given content type and payload bytes. */
  static OutboxRecord withContentType(long id, String contentType, byte[] payload) {
    return new OutboxRecord(
        id, OUTBOX, 0, "g", "Note", contentType, payload, Map.of(), 0,
        Instant.parse("2026-12-02T10:00:00Z"));
  }
}
