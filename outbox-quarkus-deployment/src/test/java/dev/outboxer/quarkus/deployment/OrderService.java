package dev.outboxer.quarkus.deployment;

import dev.outboxer.Outbox;
import dev.outboxer.testing.TestOrder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

/** The test application's business bean: the order and its events in the caller's transaction. */
@ApplicationScoped
@Transactional
public class OrderService {

  @Inject EntityManager entityManager;
  @Inject Outbox outbox;

  /** Stores the order and publishes its events; {@code fail} throws after both, so that the transaction rolls back. */
  public void place(long orderId, String customer, int sequence, boolean ship, boolean fail) {
    entityManager.persist(new TestOrder(orderId, customer + " #" + sequence));
    outbox.publish(new OrderPlaced(orderId, customer, sequence));
    if (ship) {
      outbox.publish(new ShipmentRequested(orderId));
    }
    if (fail) {
      throw new IllegalStateException("simulated failure after publishing order " + orderId);
    }
  }
}
