package dev.outboxer.quarkus.deployment;

import dev.outboxer.Outbox;
import dev.outboxer.testing.TestOrder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

/** Publishes {@link AuditEntry}s to the outbox a test names, each with its order, in the caller's transaction. */
@ApplicationScoped
@Transactional
public class AuditService {

  @Inject EntityManager entityManager;
  @Inject Outbox outbox;

  /** Stores the order and publishes its entry to {@code outboxName}; returns the message id. */
  public long record(String outboxName, long orderId, String customer, int sequence) {
    entityManager.persist(new TestOrder(orderId, customer + " #" + sequence));
    return outbox.publish(outboxName, new AuditEntry(orderId, customer, sequence));
  }

  /** As {@link #record}, then throws, so that the transaction rolls back. */
  public long recordThenFail(String outboxName, long orderId, String customer, int sequence) {
    record(outboxName, orderId, customer, sequence);
    throw new IllegalStateException("simulated failure after publishing order " + orderId);
  }
}
