package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.store.DeadMessageStatements;
import dev.outboxer.cdi.internal.store.DeadMessageStatements.DeadRow;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Setting;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code outbox.<name>.dead-retention}: removes the dead messages that died longer ago than that,
 * every {@code retention-interval}, on the workers' scheduler ({@link Workers}).
 *
 * <p>What it guarantees: only dead messages are removed, and only those whose last attempt ({@code
 * last_attempt_at}; their creation if they have none) lies further back than the retention on
 * Outboxer's clock; pending, retrying and delayed messages, and younger dead ones, are left as they
 * are. A run works in chunks of {@code admin-chunk-size} messages in id order, each in a short
 * transaction of its own that reads without locking and removes by primary key only if still dead
 * (the set-based statements of {@link DeadMessageStatements}, as the admin's discards): it takes no
 * lock on the partition rows and none that a publish or a worker's batch waits for beyond one
 * chunk's deletes. A dead message holds nothing back, so removing one changes no group's order.
 *
 * <p>One node at a time: each chunk first tries the outbox's retention lock ({@code
 * pg_try_advisory_xact_lock} on PostgreSQL, {@code GET_LOCK(…, 0)} on MariaDB, a lock of the JVM on
 * H2 and SQLite) and a node that does not get it ends its run at once, leaving the work to the node
 * that holds it. What it does not guarantee: that one node does a whole run; between two chunks
 * another node can take the lock and go on (no message is removed twice: each chunk reads what is
 * still dead). On MariaDB the lock is given back just before the chunk commits, so another node's
 * chunk can start reading rows this chunk is about to remove; it then finds them gone.
 */
@ApplicationScoped
public class DeadMessageRetention {

  private static final Logger LOG = Logger.getLogger(DeadMessageRetention.class.getName());

  /**
   * What one run did.
   *
   * @param removed dead messages removed by the committed chunks
   * @param chunks transactions that removed something
   * @param lockedOut whether the run ended because another node held the retention lock
   */
  public record Run(int removed, int chunks, boolean lockedOut) {}

  @Inject OutboxConfiguration configuration;
  @Inject Transactions transactions;
  @Inject Jdbc jdbc;
  @Inject DeadMessageStatements deadMessages;
  @Inject OutboxMetrics metrics;
  @Inject TimeSource time;

  /** Per outbox, when its last run started on Outboxer's clock. */
  private final Map<String, Instant> lastRuns = new ConcurrentHashMap<>();

  /**
   * Runs dead-retention of every outbox that has it and whose {@code retention-interval} has passed
   * since its last run on this node (the first comes at once, and the next at once after the clock
   * went back past the last run). Called by the workers' scheduler
   * often; a failure is logged at WARNING and the run is tried again at the next interval.
   *
   * @param stopping true once the application stops: a run then ends after its current chunk
   */
  void runDue(BooleanSupplier stopping) {
    Instant now = time.now();
    for (OutboxSettings settings : configuration.outboxes().values()) {
      if (settings.deadRetention() == null) {
        continue;
      }
      Instant last = lastRuns.get(settings.name());
      // A clock set back (it was ahead) makes the run due at once: else it would wait until the clock caught up again.
      if (last != null && !now.isBefore(last) && now.isBefore(last.plus(settings.retentionInterval()))) {
        continue;
      }
      lastRuns.put(settings.name(), now);
      try {
        run(settings.name(), stopping);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "Outbox '" + settings.name() + "': " + settings.key(CoreSettings.DEAD_RETENTION)
            + " failed (" + e.getMessage() + "); the chunks before the failure are committed, the next run in "
            + Setting.formatDuration(settings.retentionInterval()) + " goes on", e);
      }
    }
  }

  /**
   * One run of the outbox's dead-retention now, a chunk a transaction; nothing if it has none. Logs
   * the count at INFO when it removed anything (FINE otherwise), and counts it in {@value
   * OutboxMetrics#RETENTION_REMOVED}.
   *
   * @throws RuntimeException a chunk's failure; the chunks before it stay committed
   */
  public Run run(String outbox) {
    return run(outbox, () -> false);
  }

  private Run run(String outbox, BooleanSupplier stopping) {
    OutboxSettings settings = configuration.require(outbox);
    if (settings.deadRetention() == null) {
      return new Run(0, 0, false);
    }
    LocalDateTime diedBefore = TimeSource.toUtc(time.now().minus(settings.deadRetention()));
    long afterId = Long.MIN_VALUE;
    int removed = 0;
    int chunks = 0;
    boolean lockedOut = false;
    while (true) {
      Chunk chunk = chunk(settings, diedBefore, afterId);
      if (chunk == null) {
        lockedOut = true;
        break;
      }
      if (chunk.removed() > 0) {
        removed += chunk.removed();
        chunks++;
        metrics.retentionRemoved(outbox, chunk.removed());
      }
      if (!chunk.more() || stopping.getAsBoolean()) {
        break;
      }
      afterId = chunk.lastId();
    }
    String account = "Outbox '" + outbox + "': " + settings.key(CoreSettings.DEAD_RETENTION) + "="
        + Setting.formatDuration(settings.deadRetention()) + " removed " + removed + " dead message(s) that died"
        + " before " + diedBefore + " UTC, in " + chunks + " chunk(s)"
        + (lockedOut ? "; another node holds the retention lock and does the rest" : "");
    LOG.log(removed > 0 ? Level.INFO : Level.FINE, account);
    return new Run(removed, chunks, lockedOut);
  }

  /** What one chunk removed, where the next starts, and whether there may be more. */
  private record Chunk(int removed, long lastId, boolean more) {}

  /** One chunk in a transaction of its own; null if another node holds the retention lock. */
  private Chunk chunk(OutboxSettings settings, LocalDateTime diedBefore, long afterId) {
    String outbox = settings.name();
    try {
      return transactions.inNewTransaction(settings.transactionTimeout(), () -> jdbc.call(connection -> {
        if (!deadMessages.tryRetentionLock(connection, outbox)) {
          return null;
        }
        try {
          deadMessages.beginChange(connection, outbox, "removed by dead-retention");
          List<DeadRow> dead = deadMessages.readDiedBefore(connection, outbox, diedBefore, afterId,
              settings.adminChunkSize());
          if (dead.isEmpty()) {
            return new Chunk(0, afterId, false);
          }
          int removed = deadMessages.discard(connection, outbox, dead.stream().map(DeadRow::id).toList());
          return new Chunk(removed, dead.get(dead.size() - 1).id(), dead.size() == settings.adminChunkSize());
        } finally {
          deadMessages.releaseRetentionLock(connection, outbox);
        }
      }));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Outbox '" + outbox + "': a chunk of dead-retention failed: " + e, e);
    }
  }
}
