package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.LocalDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Brings the persisted rules of an outbox in line with its configuration at start-up, under a
 * pessimistic lock on the rules row so that nodes starting together take turns.
 *
 * <p>A changed partition count is carried out only when nothing is pending: every partition row is
 * locked first (waiting for running batches of other nodes to commit), then pending rows are
 * counted; if there are any, the change is refused, because pending messages of a group would sit
 * in a different partition than its new messages. Dead messages are moved to their new partitions,
 * so that a revived one is read again.
 */
@ApplicationScoped
public class RulesStore {

  private static final Logger LOG = Logger.getLogger(RulesStore.class.getName());

  @Inject MessageStore messages;
  @Inject Database database;

  /** Runs in the caller's transaction. */
  public void synchronize(EntityManager em, OutboxSettings settings, LocalDateTime now, String nodeId) {
    OutboxRulesEntity rules = em.find(OutboxRulesEntity.class, settings.name(), LockModeType.PESSIMISTIC_WRITE);
    Long maxAttempts = settings.unlimitedAttempts() ? null : settings.maxAttempts();
    if (rules == null) {
      rules = new OutboxRulesEntity(settings.name());
      rules.update(settings.ordering().configValue(), settings.partitions(), maxAttempts,
          settings.backoffMin().toMillis(), settings.backoffMax().toMillis(), now, nodeId);
      em.persist(rules);
      em.flush();
      LOG.info("Outbox '" + settings.name() + "' created with " + settings.partitions() + " partition(s), ordering "
          + settings.ordering().configValue());
    } else if (rules.partitions() != settings.partitions()) {
      changePartitionCount(em, settings, rules);
    }
    if (!settings.ordering().configValue().equals(rules.ordering())) {
      LOG.info("Outbox '" + settings.name() + "': ordering changes from " + rules.ordering() + " to "
          + settings.ordering().configValue());
    }
    rules.update(settings.ordering().configValue(), settings.partitions(), maxAttempts,
        settings.backoffMin().toMillis(), settings.backoffMax().toMillis(), now, nodeId);
    ensurePartitionRows(em, settings);
    if (settings.serializeWrites() && !database.dialect().advisoryLocks()) {
      ensureGroupLockRows(em, settings.name());
    }
  }

  private void changePartitionCount(EntityManager em, OutboxSettings settings, OutboxRulesEntity rules) {
    // Wait for every worker of the old layout to finish its batch, and keep new ones out.
    em.createQuery("SELECT p FROM OutboxPartitionEntity p WHERE p.outbox = :outbox", OutboxPartitionEntity.class)
        .setParameter("outbox", settings.name())
        .setLockMode(LockModeType.PESSIMISTIC_WRITE)
        .getResultList();
    long pending = messages.countPending(em, settings.name());
    String key = settings.key(ConfigKeys.PARTITIONS);
    if (pending > 0) {
      throw new OutboxConfigurationException(key, key + "=" + settings.partitions() + " differs from the "
          + rules.partitions() + " partition(s) in force for outbox '" + settings.name() + "' (set by " + rules.updatedBy()
          + "), and " + pending + " message(s) are pending. Changing the count on a live backlog would put new messages"
          + " of a group in another partition than its pending ones and could reorder or orphan them. Start with "
          + key + "=" + rules.partitions() + " until OutboxAdmin.counts(\"" + settings.name()
          + "\").pending() is 0, then change it.");
    }
    List<Object[]> dead = em.createQuery("SELECT m.id, m.groupKey FROM OutboxMessageEntity m WHERE m.outbox = :outbox"
            + " AND m.status = :dead", Object[].class)
        .setParameter("outbox", settings.name())
        .setParameter("dead", MessageStore.DEAD)
        .getResultList();
    for (Object[] row : dead) {
      long id = ((Number) row[0]).longValue();
      String groupKey = (String) row[1];
      int partition = groupKey == null
          ? GroupHash.partitionOfUngrouped(id, settings.partitions())
          : GroupHash.partition(groupKey, settings.partitions());
      em.createQuery("UPDATE OutboxMessageEntity m SET m.partition = :partition WHERE m.id = :id")
          .setParameter("partition", partition)
          .setParameter("id", id)
          .executeUpdate();
    }
    em.createQuery("DELETE FROM OutboxPartitionEntity p WHERE p.outbox = :outbox AND p.partition >= :count")
        .setParameter("outbox", settings.name())
        .setParameter("count", settings.partitions())
        .executeUpdate();
    LOG.warning("Outbox '" + settings.name() + "': partition count changed from " + rules.partitions() + " to "
        + settings.partitions() + " (nothing was pending; " + dead.size() + " dead message(s) moved). Restart every"
        + " other node with the new count: a node still running the old count publishes to the old partitions.");
  }

  private static void ensurePartitionRows(EntityManager em, OutboxSettings settings) {
    Set<Integer> existing = new HashSet<>(em.createQuery(
            "SELECT p.partition FROM OutboxPartitionEntity p WHERE p.outbox = :outbox", Integer.class)
        .setParameter("outbox", settings.name())
        .getResultList());
    for (int partition = 0; partition < settings.partitions(); partition++) {
      if (!existing.contains(partition)) {
        em.persist(new OutboxPartitionEntity(settings.name(), partition));
      }
    }
  }

  private static void ensureGroupLockRows(EntityManager em, String outbox) {
    long existing = em.createQuery("SELECT COUNT(l) FROM OutboxGroupLockEntity l WHERE l.outbox = :outbox", Long.class)
        .setParameter("outbox", outbox)
        .getSingleResult();
    if (existing == OutboxGroupLockEntity.SLOTS) {
      return;
    }
    Set<Integer> slots = new HashSet<>(em.createQuery(
            "SELECT l.slot FROM OutboxGroupLockEntity l WHERE l.outbox = :outbox", Integer.class)
        .setParameter("outbox", outbox)
        .getResultList());
    for (int slot = 0; slot < OutboxGroupLockEntity.SLOTS; slot++) {
      if (!slots.contains(slot)) {
        em.persist(new OutboxGroupLockEntity(outbox, slot));
      }
    }
  }
}
