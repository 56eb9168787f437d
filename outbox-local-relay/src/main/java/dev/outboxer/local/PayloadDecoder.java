package dev.outboxer.local;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.PayloadCodec;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.nio.charset.StandardCharsets;

/**
 * Decodes payloads for {@link OutboxMessageHandler}s the way they were encoded: with the
 * application's {@link PayloadCodec} bean, else with JSON-B as Outboxer's default codec does.
 */
interface PayloadDecoder extends AutoCloseable {

  <T> T decode(OutboxRecord record, Class<T> type) throws Exception;

  @Override
  default void close() {}

  /** For relays whose handlers all take raw records. */
  PayloadDecoder NONE = new PayloadDecoder() {
    @Override
    public <T> T decode(OutboxRecord record, Class<T> type) {
      throw new IllegalStateException("No decoder was set up for " + type.getName() + ". Indicates a bug.");
    }
  };

  static PayloadDecoder of(PayloadCodec codec) {
    return new PayloadDecoder() {
      @Override
      public <T> T decode(OutboxRecord record, Class<T> type) {
        return codec.decode(record.payload(), type);
      }
    };
  }

  /**
   * @throws OutboxConfigurationException naming the fix if no JSON-B implementation is visible
   */
  static PayloadDecoder jsonb(String outbox) {
    Jsonb jsonb;
    try {
      jsonb = JsonbBuilder.create();
    } catch (RuntimeException | LinkageError missing) {
      OutboxConfigurationException problem = new OutboxConfigurationException(LocalRelayProvider.keyOf(outbox),
          "The local relay of outbox '" + outbox + "' decodes payloads for its OutboxMessageHandler beans with JSON-B"
              + " (there is no PayloadCodec bean), and the application sees no JSON-B implementation (" + missing
              + "): enable the server's JSON-B feature (Open Liberty: jsonb-3.0), add org.eclipse:yasson in Java SE,"
              + " produce a dev.outboxer.spi.PayloadCodec bean, or use OutboxHandler, which gets the raw payload");
      problem.initCause(missing);
      throw problem;
    }
    return new PayloadDecoder() {
      @Override
      public <T> T decode(OutboxRecord record, Class<T> type) {
        return jsonb.fromJson(new String(record.payload(), StandardCharsets.UTF_8), type);
      }

      @Override
      public void close() {
        try {
          jsonb.close();
        } catch (Exception ignored) {
          // Nothing is left to release that matters at shutdown.
        }
      }
    };
  }
}
