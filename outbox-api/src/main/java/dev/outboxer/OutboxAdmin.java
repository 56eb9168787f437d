package dev.outboxer;

import java.util.List;

/**
 * Operations on an outbox's backlog: what it holds, what holds it up, and the two ways out for a
 * message that cannot be delivered.
 *
 * <p>Each method runs in the caller's JTA transaction if one is active, and in a transaction of its
 * own otherwise. All methods throw {@link UnknownOutboxException} for an outbox that is not
 * configured, and {@link IllegalArgumentException} for a {@code limit} below 1.
 *
 * <h2>Admin operations and batches in flight</h2>
 * A worker that is relaying a batch holds its partition until the batch's transaction ends. {@link
 * #discard} and {@link #discardAll} wait for that (at most the outbox's {@code
 * transaction-timeout}) before they remove anything, so a discarded message is never relayed
 * afterwards, and their results say truthfully what happened. Dead messages are never part of a
 * batch, so {@link #retryDead} and the other dead-letter operations do not wait for batches.
 *
 * <h2>Admin operations and publishers</h2>
 * With {@code serialize-writes}, {@link #retryDead} and {@link #retryDeadGroup} take the write lock
 * of every group they revive before they draw the new ids, as {@code publish} does: they wait for
 * a transaction that published to one of those groups and has not ended, so a revived message
 * comes after it in id, commit and relay order. One transaction takes at most 1,000 such locks (the
 * database holds each until the transaction ends; PostgreSQL's lock table is shared by the whole
 * server): outside a transaction, {@link #retryDead} of dead messages of more groups revives them
 * 1,000 groups a transaction (a chunk ends before its 1,001st group); in the caller's transaction
 * it is refused and revives nothing.
 * Otherwise no admin operation holds up a publish:
 * while an admin transaction is open, publishers of other groups go on (no range of the message
 * table is locked, also on MariaDB).
 *
 * <h2>Many messages at once</h2>
 * Called outside a transaction, {@link #discardAll}, {@link #discardDeadGroup}, {@link #retryDead}
 * and {@link #retryDeadGroup} work in chunks of at most {@code outbox.<name>.admin-chunk-size}
 * messages (default 10,000), in id order, each chunk in a transaction of its own that is committed
 * before the next begins: a million dead messages take a hundred short transactions, each well
 * inside the transaction timeout, and publishers and the workers go on between them (revived
 * messages are relayed while later chunks are still being revived). A chunk is all or nothing. If
 * a chunk fails, or the calling thread is interrupted (checked between chunks; the interrupt stays
 * set), the call throws an {@link OutboxException} that says how many messages the committed chunks
 * changed; the rest are as they were, and calling again finishes the work (what was revived or
 * removed is no longer dead). The result counts the messages of every chunk.
 *
 * <p>Called in the caller's transaction, the call is the caller's: it changes everything in that one
 * transaction, all or nothing, with the same set-based statements, and the caller's transaction
 * timeout has to allow for it (outside a transaction, chunk by chunk, a million dead messages took
 * 7–10 s to revive on PostgreSQL and 82 s on MariaDB on a 2-core machine: see the manual's
 * benchmarks). Chunking it would commit part of
 * the caller's work behind its back, or leave it holding every chunk's locks anyway.
 *
 * <p>A change that runs in a transaction of its own and that the database rolls back to break a
 * deadlock is run again, in a new transaction (up to four attempts in all; in chunks, the chunk is).
 * A deadlock is recognised also where a driver reports it as a batch's next exception
 * ({@code getNextException}). In the caller's
 * transaction it cannot be: the {@link OutboxException} then says the transaction was rolled back
 * and is to be run again.
 */
public interface OutboxAdmin {

  /**
   * Names the outboxes this application configures (an outbox exists when {@code
   * outbox.<name>.relay} is set), whether or not this node runs their workers. Does not touch the
   * database, and does not throw {@link UnknownOutboxException}.
   *
   * @return the outbox names, sorted; empty if none is configured
   */
  List<String> outboxes();

  /**
   * Counts the outbox's messages.
   *
   * @param outbox the outbox name
   * @return the counts at the time of the call (a consistent snapshot on databases with snapshot
   *     reads)
   */
  OutboxCounts counts(String outbox);

  /**
   * How long the outbox keeps a dead message after it died before its {@code dead-retention}
   * removes it on its schedule. Does not touch the database.
   *
   * @param outbox the outbox name
   * @return the configured {@code outbox.<name>.dead-retention}; empty when dead messages stay until
   *     retried or discarded (the default, and what an implementation that does not know says)
   */
  default java.util.Optional<java.time.Duration> deadRetention(String outbox) {
    return java.util.Optional.empty();
  }

  /**
   * Lists the outbox's partitions with their last claim (owner node, fencing token, time) and
   * their backlog.
   *
   * @param outbox the outbox name
   * @return one entry per partition in force, by partition number
   */
  List<PartitionStatus> partitions(String outbox);

  /**
   * Names the prepared (two-phase) transactions that hold partitions of the outbox: no worker can
   * claim such a partition until its transaction is committed or rolled back (see {@link
   * PreparedTransaction}). The same as the {@link PartitionStatus#preparedBy()} of {@link
   * #partitions}, without counting the backlog: cheap enough for a frequent probe. PostgreSQL only;
   * empty on other databases.
   *
   * @param outbox the outbox name
   * @return the holding transactions by partition number, sorted; empty if none
   */
  default java.util.SortedMap<Integer, PreparedTransaction> preparedTransactions(String outbox) {
    java.util.SortedMap<Integer, PreparedTransaction> held = new java.util.TreeMap<>();
    for (PartitionStatus partition : partitions(outbox)) {
      if (partition.preparedBy() != null) {
        held.put(partition.partition(), partition.preparedBy());
      }
    }
    return held;
  }

  /**
   * Tells whether Outboxer finished starting on this node: the schema was checked, the rules are in
   * line with the configuration and the workers (if any) started.
   *
   * @return {@code true} once started, {@code false} before and after shutdown began
   */
  boolean started();

  /**
   * Tells why Outboxer has not started on this node, when there is more to say than "not yet": it
   * waits for a database it could not reach at start-up ({@code "waiting for the database (...):
   * ..."}), or it failed to start once the database answered ({@code "failed to start once the
   * database answered: ..."}).
   *
   * @return the reason while not started for one of those, empty once started and otherwise
   */
  default java.util.Optional<String> notStartedReason() {
    return java.util.Optional.empty();
  }

  /**
   * Lists this node's partition workers of every outbox (empty on a publish-only node). Does not
   * touch the database.
   *
   * @return the workers, by outbox and partition
   */
  List<WorkerStatus> workers();

  /**
   * Lists the messages that wait for a retry, each holding back the later messages of its group,
   * soonest retry first.
   *
   * @param outbox the outbox name
   * @param limit the maximum number of entries
   * @return the blocked groups, at most {@code limit}
   */
  List<BlockedGroup> blockedGroups(String outbox, int limit);

  /**
   * Removes one pending or dead message, for good. A group blocked by that message (with {@code
   * max-attempts=infinity}) moves on to its next message.
   *
   * <p>If the message is in a batch being relayed, this waits until that batch's transaction has
   * ended: if the batch delivered it, there is nothing left to discard ({@code false}); otherwise
   * it is removed and never sent.
   *
   * @param outbox the outbox name
   * @param id the message id
   * @return {@code true} if the message was removed, {@code false} if no such message was left (it
   *     was relayed, discarded already, or never existed)
   * @throws OutboxException if the message's partition stayed busy for longer than the outbox's
   *     {@code transaction-timeout}; nothing was removed
   */
  boolean discard(String outbox, long id);

  /**
   * Removes several pending or dead messages, as {@link #discard(String, long)} does for one.
   *
   * @param outbox the outbox name
   * @param ids the message ids
   * @return how many were removed; ids that were not left are not counted
   * @throws OutboxException if a partition stayed busy for too long; nothing of that chunk was
   *     removed (outside a transaction, the chunks before it stay removed and the message says how
   *     many)
   */
  int discardAll(String outbox, long... ids);

  /**
   * Removes every dead message of one group.
   *
   * @param outbox the outbox name
   * @param groupKey the group key
   * @return how many were removed
   */
  int discardDeadGroup(String outbox, String groupKey);

  /**
   * Revives dead messages as new messages: each becomes pending again under a <b>new id</b> (taken
   * from the message sequence in the order of the old ids), with its attempts reset, and goes out as
   * soon as a worker next reads its partition. By then later messages of its group may already have
   * been delivered: a revived message comes <i>after</i> them, and its new id says so. Consumers that
   * drop duplicates by the last id per group (the inbox) therefore accept it once, and brokers that
   * drop repeated ids (SQS FIFO's deduplication id) do not mistake it for a duplicate. The old id is
   * gone; the INFO log line of the revival lists old and new ids.
   *
   * @param outbox the outbox name
   * @param ids the ids of the dead messages to revive; none means all dead messages of the outbox.
   *     Ids that are not dead messages of this outbox are ignored.
   * @return how many messages were revived
   * @throws OutboxException with {@code serialize-writes}, in the caller's transaction, if the
   *     messages belong to more than 1,000 groups (nothing is revived); outside a transaction, if a
   *     chunk after the first failed or the thread was interrupted (the message says how many were
   *     revived)
   */
  int retryDead(String outbox, long... ids);

  /**
   * Revives every dead message of one group, as {@link #retryDead} does.
   *
   * @param outbox the outbox name
   * @param groupKey the group key
   * @return how many messages were revived
   */
  int retryDeadGroup(String outbox, String groupKey);

  /**
   * Lists dead messages, oldest id first, with their last error and attempt count.
   *
   * @param outbox the outbox name
   * @param limit the maximum number of messages to return, at least 1
   * @return the dead messages, at most {@code limit}
   */
  List<DeadMessage> dead(String outbox, int limit);

  /**
   * Lists dead messages page by page, oldest id first, optionally of one group.
   *
   * @param outbox the outbox name
   * @param groupKey only messages of this group; {@code null} for every group
   * @param afterId only messages with a greater id: 0 for the first page, the last id of a page for
   *     the next
   * @param limit the page size, at least 1
   * @return the page, at most {@code limit} messages; empty after the last page
   */
  List<DeadMessage> dead(String outbox, String groupKey, long afterId, int limit);
}
