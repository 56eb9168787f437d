package dev.outboxer.cdi.internal.store;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.LockModeType;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The statements on {@code outbox_message} and {@code outbox_partition}. Every method runs in the
 * caller's transaction through the given EntityManager. Native statements run with flush mode
 * COMMIT so that they do not flush the application's pending changes early.
 */
@ApplicationScoped
public class MessageStore {

  static final String PENDING = MessageStatus.PENDING.name();
  static final String DEAD = MessageStatus.DEAD.name();

  /**
   * The ready rows of a partition in group mode: a row is taken if it is due and no earlier pending
   * row of its group waits for a retry. The earlier rows of its group that are due come first in
   * id order, so a batch always holds a prefix of each group. Rows without group key only need to
   * be due.
   */
  private static final String READ_GROUP_BATCH =
      "SELECT m FROM OutboxMessageEntity m"
          + " WHERE m.outbox = :outbox AND m.partition = :partition AND m.status = :pending"
          + " AND (m.nextAttemptAt IS NULL OR m.nextAttemptAt <= :now)"
          + " AND (m.groupKey IS NULL OR NOT EXISTS ("
          + "   SELECT h.id FROM OutboxMessageEntity h"
          + "   WHERE h.outbox = m.outbox AND h.partition = m.partition AND h.groupKey = m.groupKey"
          + "   AND h.status = :pending AND h.id < m.id AND h.nextAttemptAt > :now))"
          + " ORDER BY m.id";
  private static final String READ_DUE_BATCH =
      "SELECT m FROM OutboxMessageEntity m"
          + " WHERE m.outbox = :outbox AND m.partition = :partition AND m.status = :pending"
          + " AND (m.nextAttemptAt IS NULL OR m.nextAttemptAt <= :now)"
          + " ORDER BY m.id";
  private static final String READ_PENDING_BATCH =
      "SELECT m FROM OutboxMessageEntity m"
          + " WHERE m.outbox = :outbox AND m.partition = :partition AND m.status = :pending"
          + " ORDER BY m.id";

  @Inject Database database;

  public long nextId(EntityManager em) {
    Object value = em.createNativeQuery(database.dialect().nextIdSql()).setFlushMode(FlushModeType.COMMIT).getSingleResult();
    return ((Number) value).longValue();
  }

  /** Blocks until no other transaction holds the group's write lock; released when this transaction ends. */
  public void lockGroup(EntityManager em, String outbox, String groupKey) {
    SqlDialect dialect = database.dialect();
    if (dialect.advisoryLocks()) {
      em.createNativeQuery(dialect.advisoryLockSql())
          .setParameter(1, GroupHash.lockKey(outbox, groupKey))
          .setFlushMode(FlushModeType.COMMIT)
          .getSingleResult();
      return;
    }
    OutboxGroupLockEntity.Key key = new OutboxGroupLockEntity.Key(outbox, GroupHash.lockSlot(groupKey));
    if (em.find(OutboxGroupLockEntity.class, key, LockModeType.PESSIMISTIC_WRITE) == null) {
      throw new IllegalStateException("The write-lock rows of outbox '" + outbox + "' are missing although "
          + "serialize-writes is on; they are created at start-up. Indicates a bug, or rows deleted by hand.");
    }
  }

  /** Tries to take the partition for this transaction; returns false at once if another transaction holds it. */
  public boolean claimPartition(EntityManager em, String outbox, int partition) {
    List<?> rows = em.createNativeQuery(database.dialect().claimPartitionSql())
        .setParameter(1, outbox)
        .setParameter(2, partition)
        .setFlushMode(FlushModeType.COMMIT)
        .getResultList();
    return !rows.isEmpty();
  }

  /** The next rows to relay from a claimed partition, in id order, following the outbox's ordering rule. */
  public List<OutboxMessageEntity> readBatch(EntityManager em, OutboxSettings settings, int partition, LocalDateTime now) {
    if (settings.ordering() == Ordering.TOTAL) {
      // Everything behind a message that waits for its retry waits too: take the due prefix.
      List<OutboxMessageEntity> rows = em.createQuery(READ_PENDING_BATCH, OutboxMessageEntity.class)
          .setParameter("outbox", settings.name())
          .setParameter("partition", partition)
          .setParameter("pending", PENDING)
          .setMaxResults(settings.batchSize())
          .getResultList();
      List<OutboxMessageEntity> due = new ArrayList<>(rows.size());
      for (OutboxMessageEntity row : rows) {
        if (row.nextAttemptAt() != null && row.nextAttemptAt().isAfter(now)) {
          break;
        }
        due.add(row);
      }
      return due;
    }
    String query = settings.ordering() == Ordering.GROUP ? READ_GROUP_BATCH : READ_DUE_BATCH;
    return em.createQuery(query, OutboxMessageEntity.class)
        .setParameter("outbox", settings.name())
        .setParameter("partition", partition)
        .setParameter("pending", PENDING)
        .setParameter("now", now)
        .setMaxResults(settings.batchSize())
        .getResultList();
  }

  public int delete(EntityManager em, Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return em.createQuery("DELETE FROM OutboxMessageEntity m WHERE m.id IN :ids")
        .setParameter("ids", ids)
        .executeUpdate();
  }

  /** Records a failed attempt: either a retry time or, with {@code nextAttemptAt == null}, death. */
  public void recordFailure(EntityManager em, long id, int attempts, LocalDateTime nextAttemptAt, LocalDateTime now, String error) {
    em.createQuery("UPDATE OutboxMessageEntity m SET m.attempts = :attempts, m.nextAttemptAt = :next,"
            + " m.lastAttemptAt = :now, m.lastError = :error, m.status = :status WHERE m.id = :id")
        .setParameter("attempts", attempts)
        .setParameter("next", nextAttemptAt)
        .setParameter("now", now)
        .setParameter("error", error)
        .setParameter("status", nextAttemptAt == null ? DEAD : PENDING)
        .setParameter("id", id)
        .executeUpdate();
  }

  public long countPending(EntityManager em, String outbox) {
    return em.createQuery("SELECT COUNT(m) FROM OutboxMessageEntity m WHERE m.outbox = :outbox AND m.status = :pending", Long.class)
        .setParameter("outbox", outbox)
        .setParameter("pending", PENDING)
        .getSingleResult();
  }
}
