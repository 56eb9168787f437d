package dev.outboxer.it.telemetry;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The relay of the test-only outbox {@code traced} ({@code outbox.traced.relay=header-recording}):
 * confirms every message and keeps the headers it was handed, which are what any relay puts on the
 * wire (JMS properties, Kafka headers, SQS attributes).
 */
@Named("header-recording")
@ApplicationScoped
public class HeaderRecordingRelay implements Relay {

  private final Map<Long, Map<String, String>> headers = new ConcurrentHashMap<>();

  @Override
  public void relay(RelayBatch batch) {
    for (OutboxRecord record : batch.records()) {
      headers.put(record.id(), Map.copyOf(record.headers()));
      batch.confirm(record);
    }
  }

  /** The headers the message was relayed with, or null if it was not relayed. */
  public Map<String, String> headersOf(long id) {
    return headers.get(id);
  }
}
