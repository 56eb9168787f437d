package dev.outboxer.it.support;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/** Which database the sample's persistence unit (and so Outboxer's rows) is in, asked through the unit. */
@ApplicationScoped
@Transactional
public class UnitDatabase {

  @PersistenceContext(unitName = "orders")
  EntityManager em;

  /** {@code SELECT VERSION()}, which PostgreSQL and MariaDB both answer with their name in it. */
  public String version() {
    return String.valueOf(em.createNativeQuery("SELECT VERSION()").getSingleResult());
  }
}
