package dev.outboxer.sample;

import dev.outboxer.OutboxPersistence;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * Tells Outboxer which persistence unit's transactions to write its rows in: the application's own,
 * so that messages commit with the orders. Nothing of Outboxer's has to be listed in the unit.
 */
@ApplicationScoped
public class OutboxPersistenceProducer {

  @Produces
  @OutboxPersistence
  @PersistenceContext(unitName = "orders")
  EntityManager entityManager;
}
