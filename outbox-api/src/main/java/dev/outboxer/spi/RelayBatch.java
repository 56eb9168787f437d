package dev.outboxer.spi;

import dev.outboxer.Ordering;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * One batch of one partition, handed to {@link Relay#relay(RelayBatch)}, and the place where the
 * relay reports outcomes.
 *
 * <h2>Fencing</h2>
 * A batch belongs to one <i>claim</i> of its partition: the worker locked the partition in its
 * transaction and took a new {@linkplain #fencingToken() fencing token}. The claim lasts as long as
 * that transaction and at most until the worker's lease ends ({@code
 * outbox.<name>.transaction-timeout}, which the {@linkplain #deadline() deadline} stays well
 * inside). A claim can lapse without the worker noticing at once: the JVM was paused, the database
 * killed the connection. Another node may then claim the partition and relay the next batch while
 * this one is still being sent. Two things keep such a stale batch from reordering a group:
 * <ul>
 *   <li>{@link #heldBack(OutboxRecord)} answers {@code true} for every record once the claim may
 *       have lapsed (the transaction is no longer active, or the lease has ended), so a relay that
 *       asks before each send, as the {@link Relay} contract requires, stops sending;</li>
 *   <li>the destination can reject a stale writer outright: every record must carry the batch's
 *       {@linkplain #fencingToken() token} (the built-in relays send it as the {@value
 *       StandardHeaders#FENCING_TOKEN} header or its JMS spelling), and a destination that has
 *       already accepted a higher token for the same outbox and partition must refuse a lower one.
 *       An XA-enlisted relay needs nothing more: the stale transaction cannot commit.</li>
 * </ul>
 *
 * <p>Reporting methods are thread-safe. The first outcome reported for a record wins; later ones,
 * and reports that arrive after {@code relay} returned or after the {@linkplain #deadline()
 * deadline}, are ignored (and logged at WARNING: they break the relay contract). Once the claim has
 * lapsed nothing of the batch is committed, whatever the relay reports: its records stay pending
 * and go out again under a later claim.
 */
public interface RelayBatch {

  /**
   * @return the outbox name
   */
  String outbox();

  /**
   * @return the partition this batch was read from
   */
  int partition();

  /**
   * @return the outbox's ordering mode, which defines the ordering units of this batch
   */
  Ordering ordering();

  /**
   * @return the records, in ascending id order; never empty; unmodifiable
   */
  List<OutboxRecord> records();

  /**
   * The records split into {@linkplain OrderingUnits#waves waves}: the <i>k</i>-th record of every
   * ordering unit in wave <i>k</i>. A relay that sends several records at once sends a wave only
   * after every record of the previous one has an outcome (confirmed, failed, or held back), so it
   * never hands on a record while an earlier record of its unit may still fail.
   *
   * @return the waves, each non-empty, in order; unmodifiable
   */
  default List<List<OutboxRecord>> waves() {
    return OrderingUnits.waves(ordering(), records());
  }

  /**
   * The fencing token of this batch's claim. Tokens come from a database sequence and are taken in
   * the claiming transaction: every later claim of the same partition, by any node, has a greater
   * token, and no two claims share one (a claim whose transaction rolled back does not give its
   * token back). Tokens of different partitions are unrelated.
   *
   * <p>A relay whose destination can compare tokens should send it with every record and have the
   * destination refuse a record whose token is lower than the highest one it accepted for the same
   * outbox and partition: the sender has lost its claim and its records may be out of order.
   *
   * @return the token, greater than zero
   */
  long fencingToken();

  /**
   * The moment after which the worker stops waiting: unreported records then count as failed and
   * the worker thread is interrupted. A relay that waits on futures should not wait past it.
   *
   * @return the deadline of this batch ({@code outbox.<name>.relay-timeout} after the batch
   *     started)
   */
  Instant deadline();

  /**
   * Reports that a record was delivered. It will be deleted when the worker's transaction commits.
   *
   * @param record a record of this batch; a record that is not part of it is ignored (and logged
   *     at WARNING: the relay broke its contract)
   */
  void confirm(OutboxRecord record);

  /**
   * Reports that a record could not be delivered. Its attempts are counted and it is retried after
   * a backoff (or dies after {@code max-attempts}); the later records of its ordering unit are held
   * back. A permanent failure, a {@link PermanentRelayFailure} or one of a class listed in {@code
   * outbox.<name>.dead-on} (either anywhere in the cause's chain), dies at once instead, and its
   * group moves on.
   *
   * @param record a record of this batch; a record that is not part of it is ignored (and logged
   *     at WARNING)
   * @param cause why it failed; its class and message are stored as the record's last error
   *     (control characters removed, shortened to 2,000 characters)
   */
  void fail(OutboxRecord record, Throwable cause);

  /**
   * Tells whether a record must not be delivered now: an earlier record of its ordering unit in
   * this batch has failed, the batch has ended (its {@linkplain #deadline() deadline} passed) or
   * the batch's claim may have lapsed (in the last two cases every record is held back).
   * A relay calls it before each send and skips held-back records without reporting them.
   *
   * @param record a record of this batch
   * @return {@code true} if the record must not be sent now; also for a record that is not part of
   *     this batch
   */
  boolean heldBack(OutboxRecord record);

  /**
   * Tells whether this batch's claim still holds: the worker's transaction is active and its lease
   * has not ended. Once this is {@code false} it stays {@code false}, and the relay must not send
   * anything more of the batch.
   *
   * @return {@code true} while the relay may still send records of this batch
   */
  boolean claimHeld();

  /**
   * Asks to be told what became of every record once the batch's transaction ended: the core's
   * decision under the {@link Relay} contract and the transaction's outcome ({@link RecordOutcome}).
   * For a {@link RelayInterceptor} that labels records (a tracing span per record) by the core's
   * decision instead of working it out again.
   *
   * <p>The core's batches accept listeners until the relay returns and call each once, on the
   * worker's thread, after the commit or rollback, with one outcome per record of {@link
   * #records()} in order; a listener that throws is logged at WARNING and changes nothing. A batch
   * that is not the core's (a relay's own wrapper, a test's stand-in) may not say: then this
   * returns {@code false} and the listener is never called.
   *
   * @param listener called once with the outcomes
   * @return whether the listener will be called
   */
  default boolean whenSettled(Consumer<List<RecordOutcome>> listener) {
    return false;
  }
}
