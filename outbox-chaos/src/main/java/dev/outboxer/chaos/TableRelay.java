package dev.outboxer.chaos;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaos suite's own relay ({@code outbox.chaos.relay=table}): writes each record to the
 * destination database through its own plain JDBC connections, outside the worker's JTA
 * transaction, so delivery is at least once. The destination is fenced (see {@link Destination}):
 * a record whose token is lower than one already accepted for its partition is refused and
 * reported failed.
 *
 * <p>Faults it injects, as the run's settings say: a share of records fails on purpose ({@link
 * RelayBatch#fail}); a share of batches hangs for longer than the relay timeout, ignoring
 * interrupts, then carries on.
 *
 * <p>With {@code fencing=off} (the control run) it ignores the claim: it does not ask {@link
 * RelayBatch#heldBack} (it still holds back the rest of a group after a failure itself, which is
 * ordering, not fencing) and the destination accepts every token.
 */
@Named("table")
@ApplicationScoped
public class TableRelay implements Relay {

  /** What the worker process tells the relay; set before the container starts. */
  record Context(ChaosSettings settings, String node, int incarnation, Databases databases, Destination destination) {}

  private static volatile Context context;

  private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
  private final AtomicLong batches = new AtomicLong();
  private volatile Random random;

  static void use(Context workerContext) {
    context = workerContext;
  }

  /** The worker process's context, or null outside a chaos worker. */
  static Context context() {
    return context;
  }

  @Override
  public void relay(RelayBatch batch) throws Exception {
    Context c = context;
    if (c == null) {
      throw new IllegalStateException("The chaos table relay runs only in a chaos worker process (WorkerMain sets its"
          + " context); outbox '" + batch.outbox() + "' uses it elsewhere");
    }
    Random rnd = random(c);
    ChaosSettings settings = c.settings();
    boolean fencing = settings.fencing();
    String batchId = c.node() + "/" + c.incarnation() + "/" + batches.incrementAndGet();
    List<OutboxRecord> records = batch.records();
    // A hang after the first record: the batch then has deliveries before and after it, which is
    // what a stale writer looks like when another worker took the partition meanwhile.
    int hangAt = rnd.nextDouble() < settings.hangRate()
        ? (records.size() > 1 ? 1 + rnd.nextInt(records.size() - 1) : 0) : -1;
    Set<String> failedGroups = new HashSet<>();
    boolean overrunLogged = false;
    Connection connection = take(c);
    boolean healthy = false;
    try {
      // Faults from here on can make this batch's deliveries come again: the checker's window starts here.
      long batchStart = c.destination().now(connection);
      long batchStartMs = System.currentTimeMillis();
      watchOutcome(c, batchId, batch.partition());
      for (int i = 0; i < records.size(); i++) {
        OutboxRecord record = records.get(i);
        if (i == hangAt) {
          hang(c, connection, batchId + " partition " + batch.partition());
          overrunLogged = true;
        }
        String group = record.groupKey();
        if (fencing ? batch.heldBack(record) : group != null && failedGroups.contains(group)) {
          continue;
        }
        if (rnd.nextDouble() < settings.failRate()) {
          c.destination().attempt(connection, record.id(), group, batch.partition(), batch.fencingToken(), c.node(),
              batchId, batchStart, batchStartMs, Destination.FAILED, "injected");
          batch.fail(record, new InjectedFailure("chaos: injected failure of message " + record.id() + " (group "
              + group + ") in batch " + batchId));
          failedGroups.add(group);
          continue;
        }
        long delay = settings.recordDelay().toMillis();
        if (delay > 0) {
          sleepQuietly(delay);
        }
        Destination.Outcome outcome = c.destination().deliver(connection, batch.outbox(), batch.partition(),
            batch.fencingToken(), record.id(), group, c.node(), batchId, batchStart, batchStartMs, fencing);
        if (outcome.accepted()) {
          batch.confirm(record);
        } else {
          batch.fail(record, new FencedOut("The chaos destination refused message " + record.id() + " of outbox '"
              + batch.outbox() + "', partition " + batch.partition() + ": its fencing token " + batch.fencingToken()
              + " is lower than " + outcome.highestToken() + ", which it already accepted for that partition; this"
              + " batch's claim lapsed and another worker took the partition (batch " + batchId + ")"));
          failedGroups.add(group);
        }
        if (!overrunLogged && Instant.now().isAfter(batch.deadline())) {
          // Not injected: the machine was too slow. Duplicates that follow are attributed to it.
          overrunLogged = true;
          c.destination().event(connection, "relay-overrun", c.node(), batchId + " partition " + batch.partition());
        }
      }
      if (!overrunLogged && Instant.now().isAfter(batch.deadline())) {
        c.destination().event(connection, "relay-overrun", c.node(), batchId + " partition " + batch.partition());
      }
      healthy = true;
    } finally {
      give(connection, healthy);
    }
  }

  /**
   * Logs the batch's transaction if it does not commit (the database ended the session, the lease
   * ran out, the commit failed): the whole batch comes again, and the checker may blame that on it.
   * A killed worker logs nothing; its kill is logged by the orchestrator.
   */
  static void watchOutcome(Context c, String batchId, int partition) {
    try {
      jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
          .registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
              if (status == Status.STATUS_COMMITTED) {
                return;
              }
              try (Connection log = c.databases().destination("chaos-dest-" + c.node())) {
                c.destination().event(log, "batch-rolled-back", c.node(), batchId + " partition " + partition
                    + " (transaction status " + status + ")");
              } catch (SQLException | RuntimeException e) {
                // the destination is unreachable: the checker then sees no such event
              }
            }
          });
    } catch (RuntimeException notInTransaction) {
      // The core calls relays inside its transaction; if not, there is nothing to watch.
    }
  }

  /**
   * Hangs past the relay timeout; interrupts from Outboxer's watchdog are swallowed, as by a stuck
   * client. Logged as {@code relay-hang}, which the orchestrator watches to end the worker's sessions.
   */
  static void hang(Context c, Connection connection, String what) throws SQLException {
    long millis = c.settings().hang().toMillis();
    c.destination().event(connection, "relay-hang", c.node(), what + " for " + millis + "ms");
    long end = System.nanoTime() + millis * 1_000_000;
    int interrupts = 0;
    for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
      try {
        Thread.sleep(Math.max(1, left / 1_000_000));
      } catch (InterruptedException ignored) {
        interrupts++;
      }
    }
    c.destination().event(connection, "relay-hang-end", c.node(), what + ", interrupts ignored: " + interrupts);
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Random random(Context c) {
    Random current = random;
    if (current == null) {
      synchronized (this) {
        if (random == null) {
          random = new Random(c.settings().seed() * 1_000_003 + c.node().hashCode() * 31L + c.incarnation());
        }
        current = random;
      }
    }
    return current;
  }

  private Connection take(Context c) throws SQLException {
    Connection connection = idle.poll();
    return connection != null ? connection : c.databases().destination("chaos-dest-" + c.node());
  }

  private void give(Connection connection, boolean healthy) {
    if (healthy) {
      idle.add(connection);
      return;
    }
    try {
      connection.close();
    } catch (SQLException ignored) {
      // broken anyway
    }
  }

  @Override
  public void close() {
    for (Connection connection = idle.poll(); connection != null; connection = idle.poll()) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // shutting down
      }
    }
  }

  /** A failure the relay injected on purpose. */
  static final class InjectedFailure extends Exception {
    private static final long serialVersionUID = 1L;

    InjectedFailure(String message) {
      super(message, null, false, false);
    }
  }

  /** The destination refused a stale writer. */
  static final class FencedOut extends Exception {
    private static final long serialVersionUID = 1L;

    FencedOut(String message) {
      super(message, null, false, false);
    }
  }
}
