package dev.outboxer.testing;

import dev.outboxer.Outbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** An application bean that publishes: added to the extension with {@code beans(...)}. */
@ApplicationScoped
public class ShipmentService {

  @Inject Outbox outbox;

  public long ship(long orderId) {
    return outbox.publish(new Shipped(orderId, "courier"));
  }
}
