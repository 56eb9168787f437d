package dev.outboxer.cdi.internal.work;

import dev.outboxer.PreparedTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * A worker that cannot claim its partition looks (PostgreSQL, at most every {@value
 * #CHECK_SECONDS}s per partition) whether a prepared two-phase transaction holds it, and if so says
 * at WARNING which one and the way out, at most once a minute per partition (at once for another
 * transaction). A partition held by a live worker of another node is the normal case and says
 * nothing; one held by a prepared transaction stays held until someone finishes the transaction,
 * and without this nobody would know why its groups wait. Once the worker claims the partition
 * again it says so at INFO.
 */
final class PreparedHoldWarnings {

  static final long CHECK_SECONDS = 10;
  private static final Logger LOG = Logger.getLogger(BatchProcessor.class.getName());
  private static final long CHECK_NANOS = Duration.ofSeconds(CHECK_SECONDS).toNanos();
  private static final long WARNING_NANOS = Duration.ofMinutes(1).toNanos();

  private record Held(String gid, long warnedNanos) {}

  private final Map<String, Long> lastChecked = new ConcurrentHashMap<>();
  private final Map<String, Held> held = new ConcurrentHashMap<>();
  private final LongSupplier nanos;

  PreparedHoldWarnings() {
    this(System::nanoTime);
  }

  PreparedHoldWarnings(LongSupplier nanos) {
    this.nanos = nanos;
  }

  /** Whether a worker that could not claim the partition should look for a prepared holder now. */
  boolean checkDue(String outbox, int partition) {
    long now = nanos.getAsLong();
    Long last = lastChecked.get(key(outbox, partition));
    if (last != null && now - last < CHECK_NANOS) {
      return false;
    }
    lastChecked.put(key(outbox, partition), now);
    return true;
  }

  /** What the look found: warns of a holder (rate-limited), forgets a partition no longer held. */
  void checked(String outbox, int partition, Optional<PreparedTransaction> holder, Instant now) {
    String key = key(outbox, partition);
    if (holder.isEmpty()) {
      held.remove(key);
      return;
    }
    PreparedTransaction transaction = holder.get();
    Held before = held.get(key);
    long current = nanos.getAsLong();
    if (before != null && before.gid().equals(transaction.gid()) && current - before.warnedNanos() < WARNING_NANOS) {
      return;
    }
    held.put(key, new Held(transaction.gid(), current));
    LOG.warning(message(outbox, partition, transaction, now));
  }

  /** The worker claimed the partition: if it was held by a prepared transaction, that one was finished. */
  void claimed(String outbox, int partition) {
    if (held.isEmpty()) {
      return;
    }
    Held before = held.remove(key(outbox, partition));
    if (before != null) {
      LOG.info("Outbox '" + outbox + "', partition " + partition + ": claimed again, the prepared transaction '"
          + before.gid() + "' that held it was committed or rolled back");
    }
  }

  static String message(String outbox, int partition, PreparedTransaction transaction, Instant now) {
    String gid = transaction.gid();
    String since = transaction.preparedAt() == null ? ""
        : " since " + transaction.preparedAt() + " (" + Math.max(0, Duration.between(transaction.preparedAt(), now)
            .toSeconds()) + "s)";
    return "Outbox '" + outbox + "', partition " + partition + ": held by the prepared (two-phase) transaction '" + gid
        + "'" + since + " of database user '" + transaction.owner() + "' in database '" + transaction.database()
        + "'. No worker of any node can claim the partition until that transaction is finished; its groups wait,"
        + " nothing is lost. Its process died or lost its database session between the two phases of a commit."
        + " The way out: the transaction manager of the node that prepared it finishes it at its next recovery"
        + " pass once that node runs again (Narayana: every 2 minutes). If that node is gone for good, or its"
        + " transaction manager gave the branch up (pgjdbc reports a terminated session as XAER_RMERR; configure"
        + " dev.outboxer.postgresql.RecoverablePGXADataSource from outbox-postgresql-xa to prevent that), check"
        + " whether the other resource (the broker) has the batch, then run COMMIT PREPARED '" + gid + "' if it has"
        + " or ROLLBACK PREPARED '" + gid + "' if it has not (its messages are then relayed again), as '"
        + transaction.owner() + "' or a superuser. OutboxAdmin.partitions(\"" + outbox + "\") shows it too."
        + " (Said at most once a minute per partition.)";
  }

  private static String key(String outbox, int partition) {
    return outbox + '\u0000' + partition;
  }
}
