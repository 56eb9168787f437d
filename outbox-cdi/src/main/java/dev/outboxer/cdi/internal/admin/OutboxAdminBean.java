package dev.outboxer.cdi.internal.admin;

import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.store.MessageStatus;
import dev.outboxer.cdi.internal.store.OutboxMessageEntity;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.cdi.internal.work.Workers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transactional;
import java.util.Arrays;
import java.util.List;

/** The {@link OutboxAdmin} bean. */
@ApplicationScoped
@Transactional
public class OutboxAdminBean implements OutboxAdmin {

  @Inject OutboxConfiguration configuration;
  @Inject EntityManagerLookup entityManagers;
  @Inject CountsQuery countsQuery;
  @Inject Transactions transactions;
  @Inject Workers workers;

  @Override
  public OutboxCounts counts(String outbox) {
    configuration.require(outbox);
    return countsQuery.counts(entityManagers.entityManager(), outbox);
  }

  @Override
  public boolean discard(String outbox, long id) {
    configuration.require(outbox);
    int removed = entityManagers.entityManager()
        .createQuery("DELETE FROM OutboxMessageEntity m WHERE m.outbox = :outbox AND m.id = :id")
        .setParameter("outbox", outbox)
        .setParameter("id", id)
        .executeUpdate();
    if (removed > 0) {
      // The group it blocked can move on now.
      wakeAfterCommit(outbox);
    }
    return removed > 0;
  }

  @Override
  public int retryDead(String outbox, long... ids) {
    configuration.require(outbox);
    String jpql = "UPDATE OutboxMessageEntity m SET m.status = :pending, m.attempts = 0, m.nextAttemptAt = NULL,"
        + " m.lastError = NULL WHERE m.outbox = :outbox AND m.status = :dead";
    EntityManager em = entityManagers.entityManager();
    int revived;
    if (ids.length == 0) {
      revived = em.createQuery(jpql).setParameter("pending", MessageStatus.PENDING.name())
          .setParameter("dead", MessageStatus.DEAD.name()).setParameter("outbox", outbox).executeUpdate();
    } else {
      revived = em.createQuery(jpql + " AND m.id IN :ids").setParameter("pending", MessageStatus.PENDING.name())
          .setParameter("dead", MessageStatus.DEAD.name()).setParameter("outbox", outbox)
          .setParameter("ids", Arrays.stream(ids).boxed().toList()).executeUpdate();
    }
    if (revived > 0) {
      wakeAfterCommit(outbox);
    }
    return revived;
  }

  @Override
  public List<DeadMessage> dead(String outbox, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    configuration.require(outbox);
    return entityManagers.entityManager()
        .createQuery("SELECT m FROM OutboxMessageEntity m WHERE m.outbox = :outbox AND m.status = :dead ORDER BY m.id",
            OutboxMessageEntity.class)
        .setParameter("outbox", outbox)
        .setParameter("dead", MessageStatus.DEAD.name())
        .setMaxResults(limit)
        .getResultList()
        .stream()
        .map(row -> new DeadMessage(row.id(), row.outbox(), row.groupKey(), row.type(), row.attempts(), row.lastError(),
            TimeSource.fromUtc(row.createdAt()), TimeSource.fromUtc(row.lastAttemptAt())))
        .toList();
  }

  // Interim: the new admin operations land with the fenced partition store.
  @Override
  public java.util.List<dev.outboxer.PartitionStatus> partitions(String outbox) {
    throw new UnsupportedOperationException("partitions: not implemented yet");
  }

  @Override
  public java.util.List<dev.outboxer.BlockedGroup> blockedGroups(String outbox, int limit) {
    throw new UnsupportedOperationException("blockedGroups: not implemented yet");
  }

  @Override
  public int discardAll(String outbox, long... ids) {
    throw new UnsupportedOperationException("discardAll: not implemented yet");
  }

  @Override
  public int discardDeadGroup(String outbox, String groupKey) {
    throw new UnsupportedOperationException("discardDeadGroup: not implemented yet");
  }

  @Override
  public int retryDeadGroup(String outbox, String groupKey) {
    throw new UnsupportedOperationException("retryDeadGroup: not implemented yet");
  }

  @Override
  public List<DeadMessage> dead(String outbox, String groupKey, long afterId, int limit) {
    throw new UnsupportedOperationException("dead paging: not implemented yet");
  }

  private void wakeAfterCommit(String outbox) {
    transactions.registry().registerInterposedSynchronization(new Synchronization() {
      @Override
      public void beforeCompletion() {}

      @Override
      public void afterCompletion(int status) {
        if (status == Status.STATUS_COMMITTED) {
          workers.wakeAll(outbox);
        }
      }
    });
  }
}
