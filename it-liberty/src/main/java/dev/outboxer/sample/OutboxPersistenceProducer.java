package dev.outboxer.sample;

import dev.outboxer.OutboxPersistence;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * Tells Outboxer which persistence unit holds its tables: the application's own, so that messages
 * commit with the orders. The unit lists {@code META-INF/outboxer/orm.xml} (see persistence.xml).
 */
@ApplicationScoped
public class OutboxPersistenceProducer {

  @Produces
  @OutboxPersistence
  @PersistenceContext(unitName = "orders")
  EntityManager entityManager;
}
