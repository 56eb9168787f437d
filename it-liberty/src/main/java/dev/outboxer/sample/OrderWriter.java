package dev.outboxer.sample;

import dev.outboxer.Outbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Writes an order and publishes its events. It demarcates nothing: the callers ({@link
 * OrderService}, a {@code @Transactional} CDI bean, and {@link OrderDesk}, a stateless EJB) run it
 * in their JTA transaction, and everything written here commits or rolls back with it.
 */
@ApplicationScoped
public class OrderWriter {

  @PersistenceContext(unitName = "orders")
  EntityManager em;

  @Inject
  Outbox outbox;

  public PlacedOrder write(OrderRequest request, String via) {
    PurchaseOrder order = new PurchaseOrder(request.customer(), request.item(), request.quantity(), via,
        LocalDateTime.now(ZoneOffset.UTC));
    em.persist(order);
    em.flush(); // assigns the identity value the events carry
    long orderId = order.getId();
    long placed = outbox.publish(new OrderPlaced(orderId, request.customer(), request.item(), request.quantity()));
    long audited = outbox.publish("audit", new AuditEntry(orderId, request.customer(), "placed via " + via));
    long shipment = outbox.publish(new ShipmentRequested(orderId, request.customer(), request.item(), request.quantity()));
    return new PlacedOrder(orderId, request.customer(), request.item(), request.quantity(), via, placed, audited, shipment);
  }
}
