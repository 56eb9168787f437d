package dev.outboxer.sample;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Optional;

/** Places orders in a {@code @Transactional} CDI bean, and reads them. */
@ApplicationScoped
public class OrderService {

  @Inject
  OrderWriter writer;

  @PersistenceContext(unitName = "orders")
  EntityManager em;

  @Transactional
  public PlacedOrder place(OrderRequest request) {
    return writer.write(request, "cdi");
  }

  /** Writes the order and its events, then fails: the transaction rolls back. */
  @Transactional
  public PlacedOrder placeThenFail(OrderRequest request) {
    throw new SimulatedFailure(writer.write(request, "cdi"));
  }

  public Optional<PurchaseOrder> find(long id) {
    return Optional.ofNullable(em.find(PurchaseOrder.class, id));
  }

  public List<PurchaseOrder> byCustomer(String customer) {
    return em.createQuery("SELECT o FROM PurchaseOrder o WHERE o.customer = :customer ORDER BY o.id", PurchaseOrder.class)
        .setParameter("customer", customer)
        .getResultList();
  }

  public List<PurchaseOrder> latest(int limit) {
    return em.createQuery("SELECT o FROM PurchaseOrder o ORDER BY o.id DESC", PurchaseOrder.class)
        .setMaxResults(limit)
        .getResultList();
  }
}
