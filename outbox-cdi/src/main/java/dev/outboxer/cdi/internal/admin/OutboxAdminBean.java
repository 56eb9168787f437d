package dev.outboxer.cdi.internal.admin;

import dev.outboxer.BlockedGroup;
import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.OutboxException;
import dev.outboxer.PartitionStatus;
import dev.outboxer.WorkerStatus;
import dev.outboxer.cdi.internal.work.OutboxRuntime;
import dev.outboxer.cdi.internal.work.PartitionActivity;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.jdbc.SqlWork;
import dev.outboxer.cdi.internal.store.AdminStatements;
import dev.outboxer.cdi.internal.store.RulesStore;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.cdi.internal.work.Workers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transactional;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.logging.Logger;

/** The {@link OutboxAdmin} bean. Changes are logged at INFO with what was changed. */
@ApplicationScoped
@Transactional
public class OutboxAdminBean implements OutboxAdmin {

  private static final Logger LOG = Logger.getLogger(OutboxAdminBean.class.getName());

  @Inject OutboxConfiguration configuration;
  @Inject Jdbc jdbc;
  @Inject AdminStatements statements;
  @Inject RulesStore rules;
  @Inject Transactions transactions;
  @Inject Workers workers;
  @Inject TimeSource time;
  @Inject OutboxRuntime runtime;

  @Override
  @Transactional(Transactional.TxType.SUPPORTS)
  public List<String> outboxes() {
    return configuration.outboxes().keySet().stream().sorted().toList();
  }

  @Override
  public OutboxCounts counts(String outbox) {
    configuration.require(outbox);
    return call(connection -> statements.counts(connection, outbox, time.nowUtc()));
  }

  @Override
  @Transactional(Transactional.TxType.SUPPORTS)
  public boolean started() {
    return runtime.ready();
  }

  @Override
  @Transactional(Transactional.TxType.SUPPORTS)
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
    int removed = call(connection -> statements.discard(connection, outbox, list, settings.transactionTimeout()));
    if (removed > 0) {
      LOG.info("Outbox '" + outbox + "': discarded " + removed + " message(s) of " + list);
      wakeAfterCommit(outbox);
    }
    return removed;
  }

  @Override
  public int discardDeadGroup(String outbox, String groupKey) {
    configuration.require(outbox);
    Objects.requireNonNull(groupKey, "groupKey");
    int removed = call(connection -> statements.discardDead(connection, outbox, groupKey));
    if (removed > 0) {
      LOG.info("Outbox '" + outbox + "': discarded " + removed + " dead message(s) of group '" + groupKey + "'");
    }
    return removed;
  }

  @Override
  public int retryDead(String outbox, long... ids) {
    OutboxSettings settings = configuration.require(outbox);
    List<Long> list = ids == null || ids.length == 0 ? null : Arrays.stream(ids).distinct().boxed().toList();
    return revived(outbox, "", call(connection -> statements.revive(connection, outbox, list, null,
        time.nowUtc(), settings.serializeWrites())));
  }

  @Override
  public int retryDeadGroup(String outbox, String groupKey) {
    OutboxSettings settings = configuration.require(outbox);
    Objects.requireNonNull(groupKey, "groupKey");
    return revived(outbox, " of group '" + groupKey + "'", call(connection -> statements.revive(connection, outbox,
        null, groupKey, time.nowUtc(), settings.serializeWrites())));
  }

  /** Logs the old and new ids (operators and consumers look for the old one) and wakes the workers. */
  private int revived(String outbox, String which, java.util.Map<Long, Long> oldToNewIds) {
    if (!oldToNewIds.isEmpty()) {
      LOG.info("Outbox '" + outbox + "': revived " + oldToNewIds.size() + " dead message(s)" + which
          + " as new messages (old id=new id): " + abbreviated(oldToNewIds));
      wakeAfterCommit(outbox);
    }
    return oldToNewIds.size();
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
    try {
      return jdbc.call(work);
    } catch (SQLException e) {
      throw new OutboxException("Outboxer's admin operation failed in the database: " + e.getMessage(), e);
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
