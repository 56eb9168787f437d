package dev.outboxer.spi;

/**
 * Sends outbox messages to their destination and reports, per record, whether it was delivered.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Outboxer calls {@link #relay(RelayBatch)} on a partition worker's thread, inside the
 *       worker's JTA transaction (or, for a relay that says it does not {@linkplain
 *       #usesWorkerTransaction() use it}, with none on the thread and the batch in a plain database
 *       transaction). A relay whose resource is XA-capable (a JTA-aware JMS connection
 *       factory) may enlist in it: the send then commits or rolls back with the deletion of the
 *       confirmed rows. A relay that cannot enlist delivers before the database commit, which makes
 *       delivery at-least-once.</li>
 *   <li>Records arrive in id order. Within one ordering unit of the batch (a group key in {@code
 *       group} mode, the whole batch in {@code total} mode, each record alone in {@code none} mode
 *       and for records with a {@code null} group key) the relay must deliver in that order and
 *       must not deliver a record after an earlier record of the same unit failed: {@link
 *       RelayBatch#heldBack(OutboxRecord)} tells. Records of other units are independent: a failed
 *       group does not stop the relay from delivering, and confirming, the other groups.</li>
 *   <li>The relay reports each delivered record with {@link RelayBatch#confirm} and each failed one
 *       with {@link RelayBatch#fail}; both may be called from any thread (send callbacks) until
 *       {@code relay} returns or the batch's {@linkplain RelayBatch#deadline() deadline} passes.
 *       Only confirmed records are deleted.</li>
 *   <li>Outboxer treats as failed, with attempts counted and backoff applied: every record not yet
 *       reported when {@code relay} throws; every record still unreported at the deadline (the worker
 *       thread is then interrupted); and every record the relay returned without reporting, unless
 *       an earlier record of its unit failed (then it was rightly held back and is simply retried
 *       later). A confirmation of a record after a failed one of the same unit is not honoured: the
 *       record stays pending and is sent again in order, which the consumer sees as a
 *       duplicate.</li>
 *   <li><b>Fencing.</b> The relay asks {@link RelayBatch#heldBack(OutboxRecord)} before sending
 *       each record and sends nothing once it answers {@code true} for every record because the
 *       batch's claim may have lapsed ({@link RelayBatch#claimHeld()}). It passes the batch's
 *       {@linkplain RelayBatch#fencingToken() fencing token} with every record, and a destination
 *       that can compare tokens refuses a record whose token is lower than one it already accepted
 *       for the same outbox and partition. Without either, a node paused past its lease could
 *       deliver a stale batch after the next owner's batch: see {@link RelayBatch}.</li>
 *   <li>How Outboxer handles a relay that breaks the contract, each logged at WARNING: a
 *       confirmation or failure of a record that is not in the batch is ignored (the record is not
 *       part of this transaction); a second report of a record is ignored (the first wins); a
 *       report after {@code relay} returned or after the deadline is ignored; a record left
 *       unreported counts as failed (unless rightly held back); an exception from {@code relay}
 *       fails every unreported record with it.</li>
 * </ul>
 *
 * <p>A relay bean that also implements {@link MessageConstraints} has its constraints checked at
 * every publish, like a provider's.
 *
 * <p>Implementations must be thread-safe: the workers of an outbox's partitions call the same relay
 * concurrently, one batch per partition at a time.
 */
public interface Relay extends AutoCloseable {

  /**
   * Delivers a batch and reports an outcome for each record that was attempted.
   *
   * @param batch the records, in id order, and the callbacks to report outcomes
   * @throws Exception any failure that prevents the rest of the batch; every record not yet
   *     reported counts as failed with it
   */
  void relay(RelayBatch batch) throws Exception;

  /**
   * Whether this relay enlists a resource of its own in the worker's JTA transaction (for example
   * the session of a JTA-aware JMS connection factory). The transaction then has two resources, the
   * broker and the outbox's database, and commits in two phases: the database must be able to
   * prepare its branch. On every node with workers, Outboxer asks each relay once, after creating
   * it and before the first batch; if any answers {@code true} it checks, and fails the deployment
   * with an {@link dev.outboxer.OutboxConfigurationException} naming the fix, that
   * <ul>
   *   <li>the outbox's data source is an XA data source, where Outboxer can tell (an
   *       {@code @OutboxPersistence} or {@code outbox.datasource} data source, or the JTA data
   *       source of the persistence unit, that is or wraps a {@link javax.sql.XADataSource}, or an
   *       Agroal pool whose connection provider is one); a data source whose kind it cannot tell
   *       (most application servers' wrappers) is left to the server, which refuses a non-XA
   *       resource next to an XA one at the first batch;</li>
   *   <li>on PostgreSQL, {@code max_prepared_transactions} is above 0 (the default 0 refuses
   *       every {@code PREPARE TRANSACTION}).</li>
   * </ul>
   * A relay whose answer depends on what it was given (a JMS relay: an XA or a plain connection
   * factory) decides from that, without connecting anywhere. Relay decorators ({@link
   * RelayInterceptor}) are not asked: the relay they wrap is.
   *
   * @return {@code true} if the relay's sends join the worker's JTA transaction; {@code false}, the
   *     default, for a relay that delivers before the database commits
   */
  default boolean enlistsInWorkerTransaction() {
    return false;
  }

  /**
   * Whether this relay uses the worker's JTA transaction at all: enlists a resource in it, or
   * writes to a database in it (directly, or through application code it calls, as the local
   * relay's observers do). A relay that answers {@code false} lets Outboxer run its batches on a
   * plain database transaction instead of a JTA one: a connection of the outbox's data source taken
   * outside any JTA transaction, committed by Outboxer itself. That saves the transaction manager's
   * work and, on PostgreSQL, the round trip the XA driver spends on every batch (the one-node
   * latency from publish to relay is in the manual's benchmarks).
   *
   * <p>What stays the same on that path: the claim, the fencing token, the lease and what {@link
   * RelayBatch#claimHeld()} answers; {@code transaction-timeout} (Outboxer ends a batch transaction
   * that outlives it, aborting its connection, as the transaction manager would) and {@code
   * relay-timeout}; the order of every ordering unit; a failed commit delivers the whole batch again.
   *
   * <p>What an answer of {@code false} promises, and Outboxer does not check: during {@link
   * #relay(RelayBatch)} the relay (and every {@link RelayInterceptor} around it) neither reads nor
   * writes the outbox's database through the worker's thread's transaction, and does not rely on
   * one being there. There is none: {@code relay} is called with no JTA transaction on the thread.
   * Work a relay does in a JTA transaction of its own that it begins and ends inside {@code relay}
   * is its own business; a transaction it leaves on the thread fails the batch. A relay that
   * answers {@code false} here and {@code true} to {@link #enlistsInWorkerTransaction()} is taken
   * to use the transaction.
   *
   * <p>Outboxer uses the plain transaction only where it gets connections from a data source
   * ({@code outbox.datasource} or an {@code @OutboxPersistence DataSource}); through an
   * {@code EntityManager} the batches stay in JTA transactions and the start-up log says so at
   * INFO; {@code outbox.<name>.worker-transaction=jta} keeps them there too. Relay decorators ({@link RelayInterceptor}) are not asked: the relay they wrap is.
   *
   * @return {@code true}, the default, if the relay may use the worker's JTA transaction; {@code
   *     false} for a relay that sends to a system of its own (a broker, a queue) and touches no
   *     database in the worker's transaction: Outboxer's Kafka, SQS and RabbitMQ relays
   */
  default boolean usesWorkerTransaction() {
    return true;
  }

  /**
   * Releases what the relay holds (producers, connections). Outboxer calls it at shutdown for
   * relays created by a {@link RelayProvider}; it does not close application relay beans, whose
   * life cycle CDI manages. Does nothing by default.
   */
  @Override
  default void close() {}
}
