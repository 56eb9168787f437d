package dev.outboxer.cdi.internal.work;

import dev.outboxer.OpenTransaction;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * PostgreSQL: says at WARNING when a transaction open elsewhere in the database for longer than
 * {@link #THRESHOLD} holds the outbox back, naming its session, at most every {@link #REPEAT} per
 * outbox, and at INFO when it ended.
 *
 * <p>Why it matters: while any transaction is open, PostgreSQL keeps every row version it might
 * still see (the "xmin horizon"), so the rows the workers delete stay in the table and its indexes
 * as dead versions, and a worker's cursor cannot move past ids that transaction could still
 * commit ({@link PartitionCursor}): each read walks a growing stretch of dead rows, and draining
 * slows down until the transaction ends. A report, a forgotten {@code psql} in a transaction or a
 * stuck application does this; nothing is lost, but nobody would know why the outbox slowed.
 *
 * <p>The worker's probe of running transactions (part of the claim, asked only while the cursor has
 * something to settle) tells when the oldest one began; only when that is older than the threshold
 * is {@code pg_stat_activity} asked who it is. Thread-safe: the workers of all partitions share one.
 */
final class LongTransactionWarnings {

  static final Duration THRESHOLD = Duration.ofMinutes(1);
  static final Duration REPEAT = Duration.ofMinutes(5);
  private static final Logger LOG = Logger.getLogger(BatchProcessor.class.getName());

  private record Warned(int pid, long atNanos) {}

  private final ConcurrentHashMap<String, Warned> warned = new ConcurrentHashMap<>();
  private final LongSupplier nanos;
  private final Duration threshold;

  LongTransactionWarnings() {
    this(System::nanoTime, THRESHOLD);
  }

  LongTransactionWarnings(LongSupplier nanos, Duration threshold) {
    this.nanos = nanos;
    this.threshold = threshold;
  }

  /**
   * What a read's probe found.
   *
   * @param readAtMicros the database clock at the read (0: not PostgreSQL)
   * @param oldestRunningMicros when the oldest transaction running elsewhere began (0: not asked or
   *     cannot be told; the read's clock: none)
   * @param lookUp finds that transaction's session, in the worker's transaction
   */
  void observed(String outbox, long readAtMicros, long oldestRunningMicros,
      Callable<Optional<OpenTransaction>> lookUp) {
    if (readAtMicros <= 0 || oldestRunningMicros <= 0) {
      return; // not asked: says nothing either way
    }
    Duration open = Duration.ofNanos((readAtMicros - oldestRunningMicros) * 1000);
    if (open.compareTo(threshold) < 0) {
      Warned before = warned.remove(outbox);
      if (before != null) {
        LOG.info("Outbox '" + outbox + "': the long transaction (pid " + before.pid() + ") that held the outbox back"
            + " has ended; reads catch up.");
      }
      return;
    }
    long now = nanos.getAsLong();
    Warned before = warned.get(outbox);
    if (before != null && now - before.atNanos() < REPEAT.toNanos()) {
      return;
    }
    Optional<OpenTransaction> transaction;
    try {
      transaction = lookUp.call();
    } catch (Exception e) {
      LOG.log(Level.FINE, "Outbox '" + outbox + "': could not look up the long transaction", e);
      transaction = Optional.empty();
    }
    if (transaction.isPresent() && transaction.get().age().compareTo(threshold) < 0) {
      // The probe's old start belongs to no client transaction: an idle session the server runs a short transaction
      // for (notifications to a LISTENing session, dated from its last statement), which the look-up leaves out.
      LOG.fine("Outbox '" + outbox + "': the probe saw a transaction open for " + open.toSeconds() + "s, but the"
          + " oldest client transaction is " + transaction.get().age().toSeconds() + "s old; nothing to name");
      return;
    }
    warned.put(outbox, new Warned(transaction.map(OpenTransaction::pid).orElse(0), now));
    LOG.warning(message(outbox, open, transaction));
  }

  static String message(String outbox, Duration open, Optional<OpenTransaction> transaction) {
    String who = transaction.map(t -> "pid " + t.pid() + ", user '" + t.user() + "', application '"
        + t.application() + "', client " + t.client() + ", state '" + t.state() + "', open since " + t.since()
        + (t.query() == null || t.query().isBlank() ? "" : ", last query: " + oneLine(t.query())))
        .orElse("its session is not visible to this database user");
    long pid = transaction.map(OpenTransaction::pid).orElse(0);
    return "Outbox '" + outbox + "': a transaction has been open for " + open.toSeconds() + "s in this database ("
        + who + "). While it is open, PostgreSQL keeps every row the workers delete (its xmin horizon) and the"
        + " workers cannot move their read position past it: each batch reads further, draining slows down until it"
        + " ends. Nothing is lost. End it (commit or roll it back; or SELECT pg_terminate_backend(" + (pid > 0 ? pid
        : "<pid>") + ")), and consider idle_in_transaction_session_timeout for sessions that forget to. (Said at"
        + " most every " + REPEAT.toMinutes() + " minutes per outbox.)";
  }

  private static String oneLine(String query) {
    String flat = query.replaceAll("\\s+", " ").trim();
    return flat.length() > 120 ? flat.substring(0, 120) + "..." : flat;
  }
}
