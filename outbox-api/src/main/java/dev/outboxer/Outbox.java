package dev.outboxer;

/**
 * Publishes messages as part of the caller's JTA transaction.
 *
 * <p>Inject it anywhere a transaction is active (an EJB business method, a CDI bean method
 * annotated {@code @Transactional}, code between {@code UserTransaction.begin()} and {@code
 * commit()}):
 *
 * <pre>{@code
 * @Inject Outbox outbox;
 * long id = outbox.publish(new OrderPaid(42));
 * }</pre>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Atomic with the business data.</b> The message row is written through JPA in the
 *       caller's transaction: it becomes visible to the relay workers if and only if that
 *       transaction commits. Nothing is sent for a rolled-back transaction.</li>
 *   <li><b>At least once.</b> A committed message stays in the outbox until a relay confirmed it.
 *       If the commit after a delivered batch fails, the batch is delivered again, so consumers may
 *       see duplicates; every relayed message carries its id so they can be dropped.</li>
 *   <li><b>In insertion order</b> as configured by the outbox's {@link Ordering}: per {@linkplain
 *       OutboxMessage#groupKey() group key}, for the whole outbox, or not at all. Ids come from a
 *       database sequence and increase in insertion order. Insertion order equals commit order only
 *       when writers of a group are serialised: by the application's own locks, or by {@code
 *       outbox.<name>.serialize-writes=true}.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe.
 */
public interface Outbox {

  /**
   * Publishes a message to the outbox named by its type's {@link Outboxed} annotation.
   *
   * @param message the message; its payload is encoded now, so later changes to the object are not
   *     seen
   * @return the message id, unique across all outboxes and increasing in insertion order
   * @throws OutboxTransactionRequiredException if no JTA transaction is active, or the active one is
   *     marked for rollback, or it was rolled back (by its timeout, for example) before or while
   *     publish wrote the message; nothing is written
   * @throws UnknownOutboxException if the type has no {@code @Outboxed} annotation, or names an
   *     outbox that is not configured
   * @throws InvalidOutboxMessageException if the message is {@code null}, or a field of it cannot
   *     be stored or delivered (see the README's bad-input table); nothing is written and the
   *     transaction is left as it was
   * @throws OutboxException if the payload cannot be encoded or the row cannot be written; the
   *     transaction is then marked for rollback only if the database call itself failed
   */
  long publish(OutboxMessage message);

  /**
   * Publishes a message to the given outbox, whatever its type's {@link Outboxed} annotation says.
   *
   * @param outbox the outbox name, as in {@code outbox.<name>.relay}
   * @param message the message
   * @return the message id, unique across all outboxes and increasing in insertion order
   * @throws OutboxTransactionRequiredException if no JTA transaction is active, or the active one is
   *     marked for rollback, or it was rolled back (by its timeout, for example) before or while
   *     publish wrote the message; nothing is written
   * @throws UnknownOutboxException if no outbox of that name is configured
   * @throws InvalidOutboxMessageException if the message is {@code null} or cannot be stored or
   *     delivered; nothing is written
   * @throws OutboxException if the payload cannot be encoded or the row cannot be written
   */
  long publish(String outbox, OutboxMessage message);
}
