package dev.outboxer.cdi.internal.publish;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.PayloadCodec;
import jakarta.json.bind.Jsonb;
import java.nio.charset.StandardCharsets;

/** The default codec: JSON-B, UTF-8. Used when the application has no PayloadCodec bean. */
final class JsonbPayloadCodec implements PayloadCodec {

  static final String MISSING_JSONB = "Outboxer's default payload codec needs a JSON-B implementation, and the"
      + " application sees none: enable the server's JSON-B feature (Open Liberty: <feature>jsonb-3.0</feature>;"
      + " WildFly has it), add one in Java SE (org.eclipse:yasson), or produce a dev.outboxer.spi.PayloadCodec bean";

  private final Jsonb jsonb;

  private JsonbPayloadCodec(Jsonb jsonb) {
    this.jsonb = jsonb;
  }

  /**
   * @throws OutboxConfigurationException naming the fix if no JSON-B implementation (or not even
   *     the API) is visible to the application
   */
  static JsonbPayloadCodec create() {
    try {
      return new JsonbPayloadCodec(jakarta.json.bind.JsonbBuilder.create());
    } catch (RuntimeException | LinkageError noProvider) {
      OutboxConfigurationException missing = new OutboxConfigurationException("PayloadCodec", MISSING_JSONB
          + " (" + noProvider + ")");
      missing.initCause(noProvider);
      throw missing;
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
}
