package dev.outboxer.chaos.quarkus;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An entity the worker never reads or writes: Quarkus starts Hibernate ORM's default persistence
 * unit, whose EntityManager Outboxer uses as the outbox's persistence, only when the application
 * has an entity. Its table does not exist (schema management is off).
 */
@Entity
@Table(name = "chaos_quarkus_unused")
public class Unused {

  @Id
  public Long id;
}
