package dev.outboxer.quarkus.deployment;

import dev.outboxer.inbox.Inbox;
import dev.outboxer.testing.TestOrder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The test application's consumer: {@code @Inject Inbox} in a {@code @Transactional} bean, as a
 * listener of a broker would be. Handling a message writes a {@code test_order} row (through
 * Hibernate ORM) described by the message, so that the tests count how often each was handled.
 */
@ApplicationScoped
public class PaymentConsumer {

  /** Each handling is a row of its own: handling a message twice would show as two rows. */
  private static final AtomicLong HANDLINGS = new AtomicLong(1_000_000);

  @Inject Inbox inbox;
  @Inject EntityManager entityManager;

  /**
   * Receives a message: handles it if the inbox accepts it, in the caller's transaction with the
   * inbox's row. {@code fail} throws after both, so that the transaction rolls back.
   *
   * @return whether it was handled
   */
  @Transactional
  public boolean receive(String outbox, String groupKey, long id, boolean fail) {
    if (!inbox.accept(outbox, groupKey, id)) {
      return false;
    }
    entityManager.persist(new TestOrder(HANDLINGS.incrementAndGet(), description(outbox, id)));
    if (fail) {
      throw new IllegalStateException("simulated failure after handling message " + id + " of " + outbox);
    }
    return true;
  }

  /** The description of the row a handling writes. */
  static String description(String outbox, long id) {
    return "handled " + outbox + "/" + id;
  }
}
