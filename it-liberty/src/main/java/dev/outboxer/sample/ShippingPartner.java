package dev.outboxer.sample;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * An application {@link Relay}: hands shipment requests to a (simulated) shipping partner. Selected
 * by {@code outbox.shipping.relay=shipping}, its {@code @Named} name.
 *
 * <p>The partner can be switched off ({@code PUT /api/shipping/outage}): every record is then
 * reported failed, so Outboxer retries it with backoff and, after {@code outbox.shipping.max-attempts},
 * marks it dead; {@code OutboxAdmin.retryDead} sends it again once the partner is back.
 *
 * <p>A real relay would call the partner here, idempotently keyed by {@link OutboxRecord#id()}:
 * records are confirmed before the worker's transaction commits, and a failed commit delivers the
 * batch again.
 */
@Named("shipping")
@ApplicationScoped
public class ShippingPartner implements Relay {

  private static final Logger LOG = Logger.getLogger(ShippingPartner.class.getName());

  /** What the partner accepted. */
  public record Shipment(long messageId, String groupKey, String request, Instant acceptedAt) {}

  private final List<Shipment> accepted = new CopyOnWriteArrayList<>();
  private volatile boolean available = true;

  @Override
  public void relay(RelayBatch batch) {
    for (OutboxRecord record : batch.records()) {
      if (batch.heldBack(record)) {
        continue; // an earlier request of its group failed in this batch: it waits
      }
      if (!available) {
        batch.fail(record, new IllegalStateException("shipping partner unavailable (simulated outage): request "
            + record.id() + " refused, attempt " + (record.attempts() + 1)));
        continue;
      }
      accepted.add(new Shipment(record.id(), record.groupKey(), record.payloadText(), Instant.now()));
      batch.confirm(record);
    }
  }

  public boolean isAvailable() {
    return available;
  }

  /** Starts ({@code false}) or ends ({@code true}) a simulated outage. */
  public void setAvailable(boolean available) {
    this.available = available;
    LOG.info("Shipping partner " + (available ? "available again" : "unavailable (simulated outage)"));
  }

  public List<Shipment> accepted() {
    return List.copyOf(accepted);
  }

  public boolean accepted(long messageId) {
    return accepted.stream().anyMatch(shipment -> shipment.messageId() == messageId);
  }
}
