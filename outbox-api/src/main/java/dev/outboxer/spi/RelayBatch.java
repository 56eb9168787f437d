package dev.outboxer.spi;

import dev.outboxer.Ordering;
import java.time.Instant;
import java.util.List;

/**
 * One batch of one partition, handed to {@link Relay#relay(RelayBatch)}, and the place where the
 * relay reports outcomes.
 *
 * <p>Reporting methods are thread-safe. The first outcome reported for a record wins; later ones,
 * and reports that arrive after {@code relay} returned or after the {@linkplain #deadline()
 * deadline}, are ignored.
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
   * @param record a record of this batch
   * @throws IllegalArgumentException if the record is not part of this batch
   */
  void confirm(OutboxRecord record);

  /**
   * Reports that a record could not be delivered. Its attempts are counted and it is retried after
   * a backoff (or dies after {@code max-attempts}); the later records of its ordering unit are held
   * back.
   *
   * @param record a record of this batch
   * @param cause why it failed; its class and message are stored as the record's last error
   * @throws IllegalArgumentException if the record is not part of this batch
   */
  void fail(OutboxRecord record, Throwable cause);

  /**
   * Tells whether a record must not be delivered now because an earlier record of its ordering
   * unit in this batch has failed. A relay that sends one record at a time calls it before each
   * send and skips held-back records without reporting them.
   *
   * @param record a record of this batch
   * @return {@code true} if an earlier record of the same unit has been reported failed
   * @throws IllegalArgumentException if the record is not part of this batch
   */
  boolean heldBack(OutboxRecord record);
}
