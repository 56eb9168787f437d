package dev.outboxer.cdi.internal.admin;

import dev.outboxer.BlockedGroup;
import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.OutboxException;
import dev.outboxer.PartitionStatus;
import dev.outboxer.WorkerStatus;
import dev.outboxer.cdi.internal.LogText;
import dev.outboxer.cdi.internal.work.OutboxRuntime;
import dev.outboxer.cdi.internal.work.PartitionActivity;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.cdi.internal.jdbc.SqlWork;
import dev.outboxer.cdi.internal.store.AdminStatements;
import dev.outboxer.cdi.internal.store.RulesStore;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.cdi.internal.work.Workers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The {@link OutboxAdmin} bean. Changes are logged at INFO with what was changed.
 *
 * <p>Each call's database work runs through {@link AdminTransaction}: in the caller's transaction if
 * one is active, in a new one otherwise. A change in a transaction of its own that the database
 * rolls back to break a deadlock (PostgreSQL 40P01, MariaDB 1213) is run again, in a new
 * transaction, up to {@value #DEADLOCK_ATTEMPTS} times in all; nothing of a rolled-back attempt is
 * kept. In the caller's transaction it cannot be: the database rolled back the caller's work too,
 * and the exception says so.
 */
@ApplicationScoped
public class OutboxAdminBean implements OutboxAdmin {

  private static final Logger LOG = Logger.getLogger(OutboxAdminBean.class.getName());
  static final int DEADLOCK_ATTEMPTS = 4;

  @Inject OutboxConfiguration configuration;
  @Inject AdminTransaction transaction;
  @Inject AdminStatements statements;
  @Inject RulesStore rules;
  @Inject Transactions transactions;
  @Inject Workers workers;
  @Inject TimeSource time;
  @Inject OutboxRuntime runtime;

  @Override
  public List<String> outboxes() {
    return configuration.outboxes().keySet().stream().sorted().toList();
  }

  @Override
  public OutboxCounts counts(String outbox) {
    configuration.require(outbox);
    return call(connection -> statements.counts(connection, outbox, time.nowUtc()));
  }

  @Override
  public boolean started() {
    return runtime.ready();
  }

  @Override
  public java.util.Optional<String> notStartedReason() {
    return runtime.notReadyReason();
  }

  @Override
  public List<WorkerStatus> workers() {
    return workers.activities().stream()
        .sorted(java.util.Comparator.comparing(PartitionActivity::outbox).thenComparingInt(PartitionActivity::partition))
        .map(activity -> new WorkerStatus(activity.outbox(), activity.partition(), activity.running(),
            java.time.Duration.ofNanos(activity.sinceLastActivityNanos()), activity.lastRunEnded(),
            activity.lastClaimed(), activity.lastFencingToken(), activity.lastFailure()))
        .toList();
  }

  @Override
  public List<PartitionStatus> partitions(String outbox) {
    configuration.require(outbox);
    return call(connection -> {
      RulesStore.Layout layout = rules.layout(connection, outbox);
      return statements.partitions(connection, outbox, layout == null ? 0 : layout.partitionCount());
    });
  }

  @Override
  public java.util.SortedMap<Integer, dev.outboxer.PreparedTransaction> preparedTransactions(String outbox) {
    configuration.require(outbox);
    return call(connection -> {
      RulesStore.Layout layout = rules.layout(connection, outbox);
      return statements.preparedTransactions(connection, outbox, layout == null ? 0 : layout.partitionCount());
    });
  }

  @Override
  public List<BlockedGroup> blockedGroups(String outbox, int limit) {
    checkLimit(limit);
    configuration.require(outbox);
    return call(connection -> statements.blockedGroups(connection, outbox, limit, time.nowUtc()));
  }

  @Override
  public boolean discard(String outbox, long id) {
    return discardAll(outbox, id) > 0;
  }

  @Override
  public int discardAll(String outbox, long... ids) {
    OutboxSettings settings = configuration.require(outbox);
    Objects.requireNonNull(ids, "ids");
    List<Long> list = Arrays.stream(ids).distinct().boxed().toList();
    return change(outbox, connection -> statements.discard(connection, outbox, list, settings.transactionTimeout()),
        removed -> {
          if (removed > 0) {
            LOG.info("Outbox '" + outbox + "': discarded " + removed + " message(s) of " + list);
            wakeAfterCommit(outbox);
          }
        });
  }

  @Override
  public int discardDeadGroup(String outbox, String groupKey) {
    configuration.require(outbox);
    Objects.requireNonNull(groupKey, "groupKey");
    return change(outbox, connection -> statements.discardDead(connection, outbox, groupKey), removed -> {
      if (removed > 0) {
        LOG.info("Outbox '" + outbox + "': discarded " + removed + " dead message(s) of group '" + LogText.escaped(groupKey) + "'");
      }
    });
  }

  @Override
  public int retryDead(String outbox, long... ids) {
    OutboxSettings settings = configuration.require(outbox);
    List<Long> list = ids == null || ids.length == 0 ? null : Arrays.stream(ids).distinct().boxed().toList();
    if (settings.serializeWrites() && !transactions.isActive()) {
      // More groups than one transaction may lock: a transaction per part (in the caller's, the revive refuses them).
      List<List<Long>> parts = call(connection -> statements.reviveParts(connection, outbox, list, true));
      if (!parts.isEmpty()) {
        return reviveInParts(outbox, parts);
      }
    }
    return change(outbox, connection -> statements.revive(connection, outbox, list, null, time.nowUtc(),
        settings.serializeWrites()), revived -> revived(outbox, "", revived)).size();
  }

  /**
   * Revives the parts one after the other, each in a transaction of its own (and run again after a
   * deadlock, as any change): what a part revived stays revived if a later part fails.
   */
  private int reviveInParts(String outbox, List<List<Long>> parts) {
    int total = 0;
    for (int i = 0; i < parts.size(); i++) {
      List<Long> part = parts.get(i);
      String which = " (part " + (i + 1) + " of " + parts.size() + ", at most " + AdminStatements.MAX_GROUP_LOCKS
          + " groups a transaction)";
      try {
        total += change(outbox, connection -> statements.revive(connection, outbox, part, null, time.nowUtc(), true),
            revived -> revived(outbox, which, revived)).size();
      } catch (RuntimeException e) {
        if (i == 0) {
          throw e;
        }
        throw new OutboxException("Outbox '" + outbox + "': reviving part " + (i + 1) + " of " + parts.size() + " of"
            + " the dead messages failed (" + e.getMessage() + "); the " + total + " message(s) of the parts before"
            + " are revived and committed, the rest are still dead: call retryDead again to revive them.", e);
      }
    }
    return total;
  }

  @Override
  public int retryDeadGroup(String outbox, String groupKey) {
    OutboxSettings settings = configuration.require(outbox);
    Objects.requireNonNull(groupKey, "groupKey");
    return change(outbox, connection -> statements.revive(connection, outbox, null, groupKey, time.nowUtc(),
        settings.serializeWrites()), revived -> revived(outbox, " of group '" + LogText.escaped(groupKey) + "'", revived)).size();
  }

  /** Logs the old and new ids (operators and consumers look for the old one) and wakes the workers. */
  private void revived(String outbox, String which, java.util.Map<Long, Long> oldToNewIds) {
    if (!oldToNewIds.isEmpty()) {
      LOG.info("Outbox '" + outbox + "': revived " + oldToNewIds.size() + " dead message(s)" + which
          + " as new messages (old id=new id): " + abbreviated(oldToNewIds));
      wakeAfterCommit(outbox);
    }
  }

  private static String abbreviated(java.util.Map<Long, Long> ids) {
    StringBuilder text = new StringBuilder();
    int shown = 0;
    for (java.util.Map.Entry<Long, Long> entry : ids.entrySet()) {
      if (shown == 20) {
        return text.append(" and ").append(ids.size() - shown).append(" more").toString();
      }
      text.append(shown++ == 0 ? "" : ", ").append(entry.getKey()).append('=').append(entry.getValue());
    }
    return text.toString();
  }

  @Override
  public List<DeadMessage> dead(String outbox, int limit) {
    return dead(outbox, null, 0, limit);
  }

  @Override
  public List<DeadMessage> dead(String outbox, String groupKey, long afterId, int limit) {
    checkLimit(limit);
    configuration.require(outbox);
    return call(connection -> statements.dead(connection, outbox, groupKey, afterId, limit));
  }

  private static void checkLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
  }

  private <T> T call(SqlWork<T> work) {
    return transaction.call(work, result -> {});
  }

  /**
   * A change, then {@code inTransaction} with its result inside the same transaction. In a
   * transaction of its own, a deadlock the database broke by rolling it back is retried in a new
   * one (the work reads everything again: nothing of the rolled-back attempt is kept).
   */
  private <T> T change(String outbox, SqlWork<T> work, Consumer<T> inTransaction) {
    if (transactions.isActive()) {
      try {
        return transaction.call(work, inTransaction);
      } catch (RuntimeException e) {
        if (Sql.isDeadlock(e)) {
          throw new OutboxException("Outbox '" + outbox + "': the database broke a deadlock by rolling back the"
              + " caller's transaction during an admin operation (" + e.getMessage() + "). Nothing of the"
              + " transaction is committed: run it again.", e);
        }
        throw e;
      }
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return transaction.call(work, inTransaction);
      } catch (RuntimeException e) {
        if (!Sql.isDeadlock(e)) {
          throw e;
        }
        if (attempt == DEADLOCK_ATTEMPTS) {
          throw new OutboxException("Outbox '" + outbox + "': the database broke a deadlock by rolling back the admin"
              + " operation " + attempt + " times in a row (" + e.getMessage() + "). Nothing was changed: try again.",
              e);
        }
        LOG.info("Outbox '" + outbox + "': the database broke a deadlock by rolling back an admin operation; nothing of"
            + " it was committed and it is run again (attempt " + (attempt + 1) + " of " + DEADLOCK_ATTEMPTS + ")");
        pause(10L * attempt);
      }
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("Interrupted while waiting to run an admin operation again after a deadlock;"
          + " nothing was changed", e);
    }
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
