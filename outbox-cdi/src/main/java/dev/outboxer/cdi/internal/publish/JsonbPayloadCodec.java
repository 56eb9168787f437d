package dev.outboxer.cdi.internal.publish;

import dev.outboxer.OutboxException;
import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.PayloadCodec;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.nio.charset.StandardCharsets;

/** The default codec: JSON-B, UTF-8. Used when the application has no PayloadCodec bean. */
final class JsonbPayloadCodec implements PayloadCodec {

  private final Jsonb jsonb;

  JsonbPayloadCodec() {
    try {
      this.jsonb = JsonbBuilder.create();
    } catch (RuntimeException noProvider) {
      throw new OutboxException("Outboxer's default payload codec needs a JSON-B implementation: enable the server's"
          + " JSON-B feature (Open Liberty: jsonb-3.0), add one (Yasson) in Java SE, or produce a PayloadCodec bean", noProvider);
    }
  }

  @Override
  public String contentType() {
    return "application/json";
  }

  @Override
  public byte[] encode(OutboxMessage message) {
    return jsonb.toJson(message).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public <T> T decode(byte[] payload, Class<T> type) {
    return jsonb.fromJson(new String(payload, StandardCharsets.UTF_8), type);
  }

  /** Headers are stored as a JSON object of strings. */
  String encodeHeaders(java.util.Map<String, String> headers) {
    return jsonb.toJson(headers);
  }

  @SuppressWarnings("unchecked")
  java.util.Map<String, String> decodeHeaders(String json) {
    return jsonb.fromJson(json, java.util.Map.class);
  }
}
