package dev.outboxer.cdi.internal.publish;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A relay provider (name {@value #NAME}) whose destination has rules of the kinds the real relays
 * declare: a JMS provider's reserved property names, an SQS-like limit on the whole message with its
 * attributes, and limits of its own on headers and payload. Its relay confirms every record.
 */
@ApplicationScoped
public class DestinationRulesRelayProvider implements RelayProvider {

  static final String NAME = "strict";
  static final long MAX_HEADER_BYTES = 64;
  static final long MAX_PAYLOAD_BYTES = 500;
  static final long MAX_MESSAGE_BYTES = 400;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public MessageConstraints constraints(RelayContext context) {
    return new MessageConstraints() {
      @Override
      public String checkHeader(String name, String value) {
        return name.startsWith("JMS") ? "collides with the JMS header fields (names starting with JMS are reserved)"
            : null;
      }

      @Override
      public String checkMessage(String groupKey, String contentType, long payloadBytes, Map<String, String> headers) {
        long bytes = payloadBytes;
        for (Map.Entry<String, String> header : headers.entrySet()) {
          bytes += header.getKey().getBytes(StandardCharsets.UTF_8).length
              + header.getValue().getBytes(StandardCharsets.UTF_8).length;
        }
        return bytes > MAX_MESSAGE_BYTES ? "is " + bytes + " bytes with its attributes; the destination takes at most "
            + MAX_MESSAGE_BYTES : null;
      }

      @Override
      public long maxPayloadBytes() {
        return MAX_PAYLOAD_BYTES;
      }

      @Override
      public long maxHeaderBytes() {
        return MAX_HEADER_BYTES;
      }
    };
  }

  @Override
  public Relay create(RelayContext context) {
    return batch -> batch.records().forEach(batch::confirm);
  }
}
