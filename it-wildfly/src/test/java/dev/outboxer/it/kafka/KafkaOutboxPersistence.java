package dev.outboxer.it.kafka;

import dev.outboxer.OutboxPersistence;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** Outboxer writes its rows through the application's unit {@code events} (PostgreSQL, XA). */
@ApplicationScoped
public class KafkaOutboxPersistence {

  @Produces
  @OutboxPersistence
  @PersistenceContext(unitName = "events")
  EntityManager entityManager;
}
