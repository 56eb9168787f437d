package dev.outboxer.local;

import dev.outboxer.spi.Failures;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Hands each record of a batch to its handler on the worker's thread, inside the worker's JTA
 * transaction, and reports the outcome. Thread-safe: it keeps no state between batches.
 *
 * <p>The one rule everything here serves: a handler's writes and its message's deletion commit
 * together or not at all. A handler that throws may have written, and only a rollback of the whole
 * transaction can take that back, so the first failure dooms the batch; see {@link #relay}.
 */
final class LocalRelay implements Relay {

  /**
   * Stop starting handlers this long before the batch's deadline: the worker stops listening at
   * the deadline, measured from a moment slightly before the relay was called.
   */
  static final Duration DEADLINE_MARGIN = Duration.ofMillis(100);

  private final String outbox;
  private final HandlerRoutes routes;
  private final Map<HandlerRoutes.Route, Invoker> invokers;
  private final PayloadDecoder decoder;
  private final WorkerTransaction transaction;
  private final Flush flush;
  private final Runnable releaseHandlers;

  /** Calls one handler bean: decoded or raw. */
  interface Invoker {
    void invoke(OutboxRecord record, Object message) throws Exception;
  }

  /** Writes what a handler left in the outbox's persistence context to the database, or does nothing. */
  interface Flush {
    Flush NONE = () -> {};

    void flush() throws Exception;
  }

  LocalRelay(String outbox, HandlerRoutes routes, Map<HandlerRoutes.Route, Invoker> invokers, PayloadDecoder decoder,
      WorkerTransaction transaction, Flush flush, Runnable releaseHandlers) {
    this.outbox = outbox;
    this.routes = routes;
    this.invokers = Map.copyOf(invokers);
    this.decoder = decoder;
    this.transaction = transaction;
    this.flush = flush;
    this.releaseHandlers = releaseHandlers;
  }

  /**
   * Handles the records in id order and reports each one: confirmed when its handler returned,
   * failed when it threw (or its message cannot be decoded, or no handler takes its type).
   * Held-back records are skipped without a report.
   *
   * <p><b>A handler that returns after the deadline</b> (less {@link #DEADLINE_MARGIN}) dooms the
   * transaction and is reported failed, not confirmed: its work cannot commit. If the worker has
   * stopped listening by then, the report is ignored and the core charges the first unreported
   * record of a timed-out batch an attempt, with the relay timeout as its error, also when the
   * transaction was marked for rollback. Either way a handler that is always too slow backs off and
   * dies after {@code max-attempts} instead of holding its partition forever. (A confirmation there,
   * inside the margin and before the worker's timeout, left the message uncharged in a batch that
   * rolled back: it was run again forever with 0 attempts.)
   *
   * <p><b>After a handler failure</b> the relay marks the transaction for rollback: the failed
   * handler may have written, and only the rollback of the whole transaction takes that back. The
   * core then records the failure in a transaction of its own and reads the partition again; the
   * failed message's group waits for its retry, every other message is handed over again. The
   * records after the failure are therefore not handed to their handlers at all (their work could
   * not commit): the relay confirms them unhandled, which is safe only because the transaction can
   * no longer commit, so nothing is deleted, and which keeps them from being counted as failed
   * (the core counts every unreported record that is not held back as a failed attempt). So only
   * the handlers that ran before the failure in the same batch run twice.
   */
  @Override
  public void relay(RelayBatch batch) throws Exception {
    if (!transaction.canCommit()) {
      // Nothing could commit: run no handler. The core fails the batch's records, which is right: nothing happened.
      throw new LocalRelayException("The local relay of outbox '" + outbox + "' was called without an active JTA"
          + " transaction (status: " + WorkerTransaction.describe(transaction.status()) + "); it handles messages only"
          + " inside the partition worker's transaction. Indicates a bug.", null);
    }
    long deadline = System.nanoTime() + Duration.between(Instant.now(), batch.deadline()).minus(DEADLINE_MARGIN).toNanos();
    boolean doomed = false;
    List<OutboxRecord> records = batch.records();
    for (OutboxRecord record : records) {
      if (batch.heldBack(record)) {
        continue;
      }
      if (System.nanoTime() - deadline >= 0) {
        // The worker stops listening at the deadline; what is left counts as failed, as the relay-timeout rule says.
        return;
      }
      if (doomed) {
        if (transaction.canCommit()) {
          // The transaction manager did not take the rollback mark (a failing synchronization still stops the
          // commit): report nothing more rather than confirm what was not handled.
          return;
        }
        batch.confirm(record); // unhandled, in a transaction that cannot commit: see the method comment
        continue;
      }
      doomed = !handle(batch, record, deadline);
    }
  }

  /** Handles one record and reports it; returns false if the transaction can no longer commit. */
  private boolean handle(RelayBatch batch, OutboxRecord record, long deadline) {
    HandlerRoutes.Route route = routes.find(record.type()).orElse(null);
    if (route == null) {
      // Nothing was written: fail this message alone, the rest of the batch goes on.
      batch.fail(record, new LocalRelayException("Outbox '" + outbox + "' has no local handler for message type '"
          + record.type() + "' (message " + record.id() + "): add an OutboxHandler with @HandlesOutbox(value = \""
          + outbox + "\", type = \"" + record.type() + "\"), an OutboxMessageHandler for its class, or a handler for"
          + " every type of the outbox; handler types: " + new TreeSet<>(routes.byType().keySet()), null));
      return true;
    }
    Object message = null;
    if (route.messageClass() != null) {
      try {
        message = decoder.decode(record, route.messageClass());
      } catch (Exception | LinkageError undecodable) {
        batch.fail(record, new LocalRelayException("Outbox '" + outbox + "': the payload of message " + record.id()
            + " (type " + record.type() + ", " + record.contentType() + ") cannot be decoded into "
            + route.messageClass().getName() + " for the handler " + route.describe() + ": " + Failures.describe(undecodable),
            undecodable));
        return true;
      }
    }
    try {
      invokers.get(route).invoke(record, message);
    } catch (Throwable failure) {
      return failed(batch, record, failure);
    }
    if (!transaction.canCommit()) {
      // It caught the exception of a transactional call (which marked the transaction) and returned normally.
      batch.fail(record, new LocalRelayException("The handler " + route.describe() + " of outbox '" + outbox
          + "' returned normally from message " + record.id() + " (type " + record.type() + "), but left the"
          + " transaction " + WorkerTransaction.describe(transaction.status()) + ", so its work cannot commit. A"
          + " transactional call inside it failed and its exception was caught: let it propagate, or do that work"
          + " in a way that does not fail the transaction.", null));
      return false;
    }
    try {
      // A write the database refuses (a constraint) would otherwise fail at commit, blamed on no message: the batch
      // would roll back and be read again forever. Flushed here, it fails the message that made it.
      flush.flush();
    } catch (Throwable refused) {
      return failed(batch, record, refused);
    }
    if (System.nanoTime() - deadline >= 0) {
      // Returned too late: the worker may have stopped listening, and a confirmation accepted now would still end in
      // a rollback (the transaction is doomed below) without the message being charged. Report it failed instead:
      // the core charges a reported failure also in a batch that rolls back (and, should the worker have stopped
      // listening already, the record it was stuck on after its timeout).
      transaction.doom();
      batch.fail(record, new LocalRelayException("The handler " + route.describe() + " of outbox '" + outbox
          + "' returned from message " + record.id() + " (type " + record.type() + ") less than "
          + DEADLINE_MARGIN.toMillis() + "ms before outbox." + outbox + ".relay-timeout ran out, when the worker may"
          + " no longer be listening; its work is rolled back and the message counts as a failed attempt. Make the"
          + " handler faster, or raise relay-timeout (and transaction-timeout).", null));
      return false;
    }
    batch.confirm(record);
    return true;
  }

  /** The handler may have written before it failed; only the rollback of the whole transaction takes that back. */
  private boolean failed(RelayBatch batch, OutboxRecord record, Throwable failure) {
    transaction.doom();
    batch.fail(record, failure);
    if (failure instanceof VirtualMachineError fatal) {
      throw fatal;
    }
    return false;
  }

  @Override
  public void close() {
    try {
      decoder.close();
    } finally {
      // Destroys the @Dependent handler instances created for this relay.
      releaseHandlers.run();
    }
  }
}
