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

  /**
   * The application's codec, or the JSON-B one. Resolved at start-up, so that a missing JSON-B
   * implementation fails the deployment instead of the first publish.
   */
  public PayloadCodec payloadCodec() {
    PayloadCodec codec = payloadCodec;
    if (codec == null) {
      if (applicationCodecs.isResolvable()) {
        codec = applicationCodecs.get();
      } else {
        try {
          codec = JsonbPayloadCodec.create();
        } catch (LinkageError noJsonbApi) {
          // Loading the codec class itself failed: not even the JSON-B API is visible.
          dev.outboxer.OutboxConfigurationException missing = new dev.outboxer.OutboxConfigurationException(
              "PayloadCodec", JsonbPayloadCodec.MISSING_JSONB + " (" + noJsonbApi + ")");
          missing.initCause(noJsonbApi);
          throw missing;
        }
      }
      payloadCodec = codec;
    }
    return codec;
  }

  /** Headers are stored as a JSON object; null for none, the common case. */
  public String encodeHeaders(Map<String, String> headers) {
    return HeaderCodec.encode(headers);
  }

  /**
   * @throws IllegalArgumentException if the stored text is not a JSON object of strings
   */
  public Map<String, String> decodeHeaders(String stored) {
    return HeaderCodec.decode(stored);
  }
}
