package dev.outboxer.cdi.internal.publish;

import dev.outboxer.spi.PayloadCodec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Map;

/** The payload codec in use (the application's bean, or JSON-B) and the header encoding. */
@ApplicationScoped
public class Codecs {

  @Inject Instance<PayloadCodec> applicationCodecs;

  private volatile PayloadCodec payloadCodec;
  private volatile JsonbPayloadCodec jsonb;

  public PayloadCodec payloadCodec() {
    PayloadCodec codec = payloadCodec;
    if (codec == null) {
      codec = applicationCodecs.isResolvable() ? applicationCodecs.get() : jsonb();
      payloadCodec = codec;
    }
    return codec;
  }

  /** Headers are stored as a JSON object; null for none, the common case. */
  public String encodeHeaders(Map<String, String> headers) {
    return headers.isEmpty() ? null : jsonb().encodeHeaders(headers);
  }

  public Map<String, String> decodeHeaders(String stored) {
    return stored == null ? Map.of() : jsonb().decodeHeaders(stored);
  }

  private JsonbPayloadCodec jsonb() {
    JsonbPayloadCodec codec = jsonb;
    if (codec == null) {
      codec = new JsonbPayloadCodec();
      jsonb = codec;
    }
    return codec;
  }
}
