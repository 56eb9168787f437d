package dev.outboxer.it.support;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/** Reads the tables directly (native SQL), for the tests' own checks. */
@ApplicationScoped
@Transactional
public class OutboxTables {

  @PersistenceContext(unitName = "orders")
  EntityManager em;

  /** How many of these message ids have a row in outbox_message (pending or dead). */
  public long countMessages(long... ids) {
    long found = 0;
    for (long id : ids) {
      Number count = (Number) em.createNativeQuery("SELECT COUNT(*) FROM outbox_message WHERE id = ?1")
          .setParameter(1, id)
          .getSingleResult();
      found += count.longValue();
    }
    return found;
  }

  /** The class of the provider's EntityManager behind the container's proxy. */
  public String providerEntityManagerClass() {
    return em.getDelegate().getClass().getName();
  }
}
