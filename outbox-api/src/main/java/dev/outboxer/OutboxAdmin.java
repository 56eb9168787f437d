package dev.outboxer;

import java.util.List;

/**
 * Operations on an outbox's backlog: counts for monitoring, and the two ways out for a message that
 * cannot be delivered.
 *
 * <p>Each method runs in the caller's JTA transaction if one is active, and in a transaction of its
 * own otherwise. All methods throw {@link UnknownOutboxException} for an outbox that is not
 * configured.
 */
public interface OutboxAdmin {

  /**
   * Counts the outbox's messages.
   *
   * @param outbox the outbox name
   * @return the counts at the time of the call (a consistent snapshot on databases with snapshot
   *     reads)
   */
  OutboxCounts counts(String outbox);

  /**
   * Removes one pending or dead message, for good. A group blocked by that message (with {@code
   * max-attempts=infinity}) moves on to its next message.
   *
   * @param outbox the outbox name
   * @param id the message id
   * @return {@code true} if the message was removed, {@code false} if no such message was left (it
   *     may just have been relayed)
   */
  boolean discard(String outbox, long id);

  /**
   * Revives dead messages: they become pending again with their attempts reset, keep their
   * original ids, and go out as soon as a worker next reads their partition. By then later messages
   * of their group may already have been delivered: a revived message comes <i>after</i> them.
   *
   * @param outbox the outbox name
   * @param ids the ids of the dead messages to revive; none means all dead messages of the outbox.
   *     Ids that are not dead messages of this outbox are ignored.
   * @return how many messages were revived
   */
  int retryDead(String outbox, long... ids);

  /**
   * Lists dead messages, oldest id first, with their last error and attempt count.
   *
   * @param outbox the outbox name
   * @param limit the maximum number of messages to return, at least 1
   * @return the dead messages, at most {@code limit}
   * @throws IllegalArgumentException if {@code limit} is less than 1
   */
  List<DeadMessage> dead(String outbox, int limit);
}
