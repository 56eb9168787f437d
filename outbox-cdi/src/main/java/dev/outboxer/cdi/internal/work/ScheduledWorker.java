package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drives one partition worker on a scheduled executor: one run at a time, each run scheduling the
 * next. A wake-up pulls a future run forward, or makes a running one go again at once.
 *
 * <p>Nothing ends the chain silently: a run that throws anything is logged at WARNING and followed
 * by the next one; a refused scheduling (the executor rejected the task) is logged at WARNING and
 * left to the {@linkplain #supervise supervisor}, which reschedules a worker whose chain broke.
 */
final class ScheduledWorker {

  private static final Logger LOG = Logger.getLogger(ScheduledWorker.class.getName());

  /** What the supervisor found. */
  enum Health { OK, RESCHEDULED, STUCK }

  private final PartitionWorker worker;
  private final ScheduledExecutorService executor;
  private ScheduledFuture<?> next;
  private long nextDueNanos;
  private boolean running;
  private boolean wakeRequested;
  private boolean stopped;
  private boolean scheduleRefused;
  /** The gate of the run {@link #prime} started, until that run takes it. */
  private CommitGate primedGate;

  ScheduledWorker(PartitionWorker worker, ScheduledExecutorService executor) {
    this.worker = worker;
    this.executor = executor;
  }

  PartitionWorker worker() {
    return worker;
  }

  synchronized void start() {
    schedule(Duration.ZERO);
  }

  synchronized void wake() {
    if (stopped) {
      return;
    }
    if (running) {
      wakeRequested = true;
    } else if (next == null || next.getDelay(TimeUnit.NANOSECONDS) > 0 && next.cancel(false)) {
      schedule(Duration.ZERO);
    }
  }

  /**
   * A transaction that published to this partition is about to commit: if the worker is idle, its
   * next run starts now and its first batch claims the partition while the commit runs, reading once
   * the returned gate is {@linkplain CommitGate#completed completed}. Null if the worker is running
   * or about to (the publisher's wake-up reaches it as usual).
   */
  synchronized CommitGate prime() {
    if (stopped || running || primedGate != null) {
      return null;
    }
    if (next != null && (next.getDelay(TimeUnit.NANOSECONDS) <= 0 || !next.cancel(false))) {
      return null;
    }
    CommitGate gate = new CommitGate();
    primedGate = gate;
    schedule(Duration.ZERO);
    if (next == null) {
      primedGate = null;
      return null;
    }
    return gate;
  }

  private void run() {
    CommitGate gate;
    synchronized (this) {
      if (stopped || running) {
        return;
      }
      running = true;
      wakeRequested = false;
      gate = primedGate;
      primedGate = null;
    }
    Duration delay = worker.settings().pollInterval();
    try {
      delay = worker.run(this::isStopped, gate);
    } catch (Throwable unexpected) {
      LOG.log(Level.WARNING, "Outbox '" + worker.outbox() + "', partition " + worker.partition()
          + ": the worker failed unexpectedly; it runs again after the poll interval", unexpected);
      if (unexpected instanceof VirtualMachineError fatal) {
        throw fatal;
      }
    } finally {
      synchronized (this) {
        running = false;
        if (stopped) {
          notifyAll();
        } else {
          schedule(wakeRequested ? Duration.ZERO : delay);
        }
      }
    }
  }

  private synchronized boolean isStopped() {
    return stopped;
  }

  private void schedule(Duration delay) {
    try {
      next = executor.schedule(this::run, delay.toNanos(), TimeUnit.NANOSECONDS);
      nextDueNanos = System.nanoTime() + delay.toNanos();
      scheduleRefused = false;
    } catch (RejectedExecutionException refused) {
      next = null;
      if (!scheduleRefused) {
        scheduleRefused = true;
        LOG.log(Level.WARNING, "Outbox '" + worker.outbox() + "', partition " + worker.partition() + ": the executor"
            + " refused the worker's next run (" + refused + "); the supervisor schedules it again", refused);
      }
    } catch (RuntimeException broken) {
      next = null;
      scheduleRefused = true;
      LOG.log(Level.WARNING, "Outbox '" + worker.outbox() + "', partition " + worker.partition() + ": scheduling the"
          + " worker's next run failed; the supervisor schedules it again", broken);
    }
  }

  /**
   * Checked by the supervisor every few seconds: a worker that is neither running nor scheduled (its
   * scheduling was refused, or a run was lost), or whose scheduled run is long overdue, is scheduled
   * again now; a worker whose run has lasted longer than {@code stuckAfter} is reported stuck.
   */
  synchronized Health supervise(Duration overdueAfter, Duration stuckAfter) {
    if (stopped) {
      return Health.OK;
    }
    if (running) {
      return worker.activity().currentRunNanos() > stuckAfter.toNanos() ? Health.STUCK : Health.OK;
    }
    boolean lost = next == null || next.isDone() || next.isCancelled();
    boolean overdue = !lost && System.nanoTime() - nextDueNanos > overdueAfter.toNanos();
    if (lost || overdue) {
      if (!scheduleRefused) {
        LOG.warning("Outbox '" + worker.outbox() + "', partition " + worker.partition() + ": the worker has not run for "
            + worker.activity().sinceLastActivityNanos() / 1_000_000 + "ms and " + (lost ? "had no run scheduled"
            : "its scheduled run is overdue") + "; scheduling it again");
      }
      if (next != null) {
        next.cancel(false);
      }
      schedule(Duration.ZERO);
      return Health.RESCHEDULED;
    }
    return Health.OK;
  }

  /** Gives up on a run that hangs (a relay ignoring its interrupt): it is no longer waited for. */
  synchronized void abandon() {
    stopped = true;
    if (next != null) {
      next.cancel(false);
    }
  }

  /** Stops scheduling and waits, until the deadline at most, for a running batch to finish. */
  synchronized boolean stop(long deadlineNanos) throws InterruptedException {
    stopped = true;
    if (next != null) {
      next.cancel(false);
    }
    while (running) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
