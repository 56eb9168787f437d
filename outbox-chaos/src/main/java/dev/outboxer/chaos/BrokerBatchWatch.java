package dev.outboxer.chaos;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Logs, for the broker relays ({@code jms}, {@code kafka}), the faults the core itself runs into, as
 * the table relay logs them for its own batches: a batch whose transaction did not commit
 * ({@code batch-rolled-back}) and a relay call that returned after its deadline ({@code
 * relay-overrun}). A broker may already hold such a batch's records (a Kafka transaction committed
 * just before the relay timed out), so they come again under a later claim; the checker blames those
 * repeats on these events. It only watches: every batch goes to the broker relay unchanged.
 */
@ApplicationScoped
public class BrokerBatchWatch implements RelayInterceptor {

  @Override
  public Relay intercept(Relay relay, RelayContext context) {
    return batch -> {
      TableRelay.Context c = TableRelay.context();
      String batchId = c == null ? null : c.node() + "/token-" + batch.fencingToken();
      if (c != null) {
        TableRelay.watchOutcome(c, batchId, batch.partition());
      }
      try {
        relay.relay(batch);
      } finally {
        if (c != null && Instant.now().isAfter(batch.deadline())) {
          logOverrun(c, batchId, batch);
        }
      }
    };
  }

  private static void logOverrun(TableRelay.Context c, String batchId, RelayBatch batch) {
    try (Connection log = c.databases().destination("chaos-dest-" + c.node())) {
      c.destination().event(log, "relay-overrun", c.node(), batchId + " partition " + batch.partition());
    } catch (SQLException | RuntimeException e) {
      // the destination is unreachable: the checker then sees no such event
    }
  }
}
