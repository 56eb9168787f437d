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
import dev.outboxer.cdi.internal.store.DeadMessageStatements;
import dev.outboxer.cdi.internal.store.RulesStore;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.cdi.internal.work.Workers;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The {@link OutboxAdmin} bean. Changes are logged at INFO with what was changed.
 *
 * <p>Each call's database work runs through {@link AdminTransaction}: in the caller's transaction if
 * one is active, in a new one otherwise. The bulk changes ({@code discardAll}, {@code
 * discardDeadGroup}, {@code retryDead}, {@code retryDeadGroup}) outside a transaction run a chunk of
 * at most {@code admin-chunk-size} messages a transaction ({@link #chunked}); in the caller's
 * transaction they are one change, the caller's. A change in a transaction of its own that the database
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
  @Inject DeadMessageStatements deadMessages;
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
  public java.util.Optional<java.time.Duration> deadRetention(String outbox) {
    return java.util.Optional.ofNullable(configuration.require(outbox).deadRetention());
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
    List<Long> list = Arrays.stream(ids).distinct().sorted().boxed().toList();
    if (transactions.isActive() || list.size() <= settings.adminChunkSize()) {
      return change(outbox, connection -> statements.discard(connection, outbox, list, settings.transactionTimeout()),
          removed -> {
            if (removed > 0) {
              LOG.info("Outbox '" + outbox + "': discarded " + removed + " message(s) of " + list);
              wakeAfterCommit(outbox);
            }
          });
    }
    return chunked(outbox, "discarded", " message(s) of the " + list.size() + " ids given", (connection, afterId) -> {
      List<Long> slice = next(list, afterId, settings.adminChunkSize());
      int removed = statements.discard(connection, outbox, slice, settings.transactionTimeout());
      return new Chunk(removed, removed + " message(s)", slice.get(slice.size() - 1),
          slice.get(slice.size() - 1) < list.get(list.size() - 1));
    });
  }

  @Override
  public int discardDeadGroup(String outbox, String groupKey) {
    OutboxSettings settings = configuration.require(outbox);
    Objects.requireNonNull(groupKey, "groupKey");
    String which = " of group '" + LogText.escaped(groupKey) + "'";
    if (transactions.isActive()) {
      return change(outbox, connection -> statements.discardDead(connection, outbox, groupKey), removed -> {
        if (removed > 0) {
          LOG.info("Outbox '" + outbox + "': discarded " + removed + " dead message(s)" + which);
        }
      });
    }
    return chunked(outbox, "discarded", " dead message(s)" + which, (connection, afterId) -> {
      deadMessages.beginChange(connection, outbox, "discarded");
      List<DeadMessageStatements.DeadRow> dead = deadMessages.read(connection, outbox, null, groupKey, afterId,
          settings.adminChunkSize());
      if (dead.isEmpty()) {
        return Chunk.NONE;
      }
      int removed = deadMessages.discard(connection, outbox, dead.stream().map(DeadMessageStatements.DeadRow::id)
          .toList());
      return new Chunk(removed, removed + " dead message(s)" + which, dead.get(dead.size() - 1).id(),
          dead.size() == settings.adminChunkSize());
    });
  }

  @Override
  public int retryDead(String outbox, long... ids) {
    OutboxSettings settings = configuration.require(outbox);
    List<Long> list = ids == null || ids.length == 0 ? null : Arrays.stream(ids).distinct().sorted().boxed().toList();
    if (transactions.isActive()) {
      return change(outbox, connection -> statements.revive(connection, outbox, list, null, time.nowUtc(),
          settings.serializeWrites()), revived -> revived(outbox, "", revived)).size();
    }
    return reviveInChunks(outbox, settings, list, null, "");
  }

  @Override
  public int retryDeadGroup(String outbox, String groupKey) {
    OutboxSettings settings = configuration.require(outbox);
    Objects.requireNonNull(groupKey, "groupKey");
    String which = " of group '" + LogText.escaped(groupKey) + "'";
    if (transactions.isActive()) {
      return change(outbox, connection -> statements.revive(connection, outbox, null, groupKey, time.nowUtc(),
          settings.serializeWrites()), revived -> revived(outbox, which, revived)).size();
    }
    return reviveInChunks(outbox, settings, null, groupKey, which);
  }

  /**
   * Revives the dead messages (of the ids given if any, of the group given if any) a chunk of at
   * most {@code admin-chunk-size} a transaction, in id order. With {@code serialize-writes} a chunk
   * also stops before its {@value AdminStatements#MAX_GROUP_LOCKS}-and-first group: it holds each of
   * its groups' locks until it commits. Revived messages get new ids above every id drawn before,
   * so chunks in id order keep each group's order however the groups fall into chunks.
   */
  private int reviveInChunks(String outbox, OutboxSettings settings, List<Long> ids, String groupKey, String which) {
    int chunkSize = settings.adminChunkSize();
    boolean lockGroups = settings.serializeWrites();
    return chunked(outbox, "revived", " dead message(s)" + which + " as new messages", (connection, afterId) -> {
      List<Long> candidates = ids == null ? null : next(ids, afterId, chunkSize);
      if (candidates != null && candidates.isEmpty()) {
        return Chunk.NONE;
      }
      deadMessages.beginChange(connection, outbox, "revived");
      List<DeadMessageStatements.DeadRow> read = deadMessages.read(connection, outbox, candidates, groupKey, afterId,
          chunkSize);
      List<DeadMessageStatements.DeadRow> dead = lockGroups ? withinGroupLocks(read) : read;
      Map<Long, Long> revived = deadMessages.revive(connection, outbox, dead, time.nowUtc(), lockGroups);
      boolean cut = dead.size() < read.size();
      long lastId = cut ? dead.get(dead.size() - 1).id()
          : candidates != null ? candidates.get(candidates.size() - 1)
          : read.isEmpty() ? afterId : read.get(read.size() - 1).id();
      boolean more = cut || (candidates != null ? lastId < ids.get(ids.size() - 1) : read.size() == chunkSize);
      return new Chunk(revived.size(), revived.size() + " dead message(s)" + which
          + " as new messages (old id=new id): " + abbreviated(revived), lastId, more);
    });
  }

  /** The first rows, in id order, that belong to at most MAX_GROUP_LOCKS groups (the ungrouped ones need no lock). */
  private static List<DeadMessageStatements.DeadRow> withinGroupLocks(List<DeadMessageStatements.DeadRow> rows) {
    java.util.Set<String> groups = new java.util.HashSet<>();
    for (int i = 0; i < rows.size(); i++) {
      String group = rows.get(i).groupKey();
      if (group != null && !groups.contains(group)) {
        if (groups.size() == AdminStatements.MAX_GROUP_LOCKS) {
          return rows.subList(0, i);
        }
        groups.add(group);
      }
    }
    return rows;
  }

  /** Up to {@code limit} of the sorted ids above {@code afterId}. */
  private static List<Long> next(List<Long> sortedIds, long afterId, int limit) {
    int from = java.util.Collections.binarySearch(sortedIds, afterId);
    from = from >= 0 ? from + 1 : -from - 1;
    return sortedIds.subList(from, Math.min(sortedIds.size(), from + limit));
  }

  /** One chunk's work, in its own transaction: reads what comes after {@code afterId} and changes it. */
  @FunctionalInterface
  private interface ChunkWork {
    Chunk apply(java.sql.Connection connection, long afterId) throws java.sql.SQLException;
  }

  /**
   * What one chunk changed.
   *
   * @param changed how many messages
   * @param what the log line's account of them
   * @param lastId the last id the chunk dealt with: the next chunk starts after it
   * @param more whether there may be more after it
   */
  private record Chunk(int changed, String what, long lastId, boolean more) {
    static final Chunk NONE = new Chunk(0, "", Long.MAX_VALUE, false);
  }

  /**
   * Runs a bulk change a chunk a transaction, each committed before the next begins (run again
   * after a deadlock, as any change), and logs each chunk once committed. The chunks keep the
   * transactions short, well inside any transaction timeout, and let publishers and the workers go
   * on between them. An interrupt of the calling thread stops the call between two chunks.
   *
   * @throws OutboxException if a chunk after the first failed or the thread was interrupted: the
   *     message says how many messages the committed chunks changed; the rest is as it was, and
   *     calling again finishes the work
   */
  private int chunked(String outbox, String action, String whatInAll, ChunkWork work) {
    long afterId = Long.MIN_VALUE;
    int total = 0;
    for (int number = 1; ; number++) {
      if (Thread.currentThread().isInterrupted()) {
        // The interrupt stays set for the caller to see.
        throw new OutboxException("Outbox '" + outbox + "': the admin operation was interrupted after " + (number - 1)
            + " chunk(s); they " + action + " " + total + " message(s) and are committed, the rest is as it was:"
            + " call it again to finish.");
      }
      long from = afterId;
      Chunk chunk;
      try {
        chunk = change(outbox, connection -> work.apply(connection, from), result -> {});
      } catch (RuntimeException e) {
        if (number == 1) {
          throw e;
        }
        throw new OutboxException("Outbox '" + outbox + "': chunk " + number + " of the admin operation failed ("
            + e.getMessage() + "); the chunks before it " + action + " " + total + " message(s) and are committed,"
            + " the rest is as it was: call it again to finish.", e);
      }
      total += chunk.changed();
      if (chunk.changed() > 0) {
        LOG.info("Outbox '" + outbox + "': " + action + " " + chunk.what() + " in chunk " + number + " (" + total
            + " so far)");
        workers.wakeAll(outbox);
      }
      if (!chunk.more()) {
        if (total == 0 || number > 1) {
          LOG.fine("Outbox '" + outbox + "': " + action + " " + total + whatInAll + " in " + number + " chunk(s)");
        }
        return total;
      }
      afterId = chunk.lastId();
    }
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
