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
 */
final class ScheduledWorker {

  private static final Logger LOG = Logger.getLogger(ScheduledWorker.class.getName());

  private final PartitionWorker worker;
  private final ScheduledExecutorService executor;
  private ScheduledFuture<?> next;
  private boolean running;
  private boolean wakeRequested;
  private boolean stopped;

  ScheduledWorker(PartitionWorker worker, ScheduledExecutorService executor) {
    this.worker = worker;
    this.executor = executor;
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

  private void run() {
    synchronized (this) {
      if (stopped || running) {
        return;
      }
      running = true;
      wakeRequested = false;
    }
    Duration delay = worker.partitionDelayOnError();
    try {
      delay = worker.run(this::isStopped);
    } catch (RuntimeException | Error unexpected) {
      LOG.log(Level.SEVERE, "Outbox '" + worker.outbox() + "', partition " + worker.partition()
          + ": the worker failed unexpectedly; it runs again after the poll interval. Indicates a bug.", unexpected);
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
    } catch (RejectedExecutionException shuttingDown) {
      LOG.log(Level.FINE, "The executor refused the next run; the application is stopping", shuttingDown);
      stopped = true;
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
