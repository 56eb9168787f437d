package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Drives the partition workers from EJB timer ticks: each tick runs, one after another on the
 * timer's thread, every worker that is due. Ticks do not overlap; a tick asked for while one runs
 * makes that one go round again. A worker that throws is logged and runs again at its next due
 * time: one failure never ends the ticks.
 */
final class TimerDrivenWorkers {

  private static final Logger LOG = Logger.getLogger(TimerDrivenWorkers.class.getName());

  private final List<Entry> entries = new CopyOnWriteArrayList<>();
  private final AtomicBoolean ticking = new AtomicBoolean();
  private volatile boolean again;
  private volatile Runnable wakeTimer = () -> {};

  void add(PartitionWorker worker) {
    entries.add(new Entry(worker));
  }

  void remove(PartitionWorker worker) {
    entries.removeIf(entry -> entry.worker == worker);
  }

  /** The EJB registers how to get a tick soon (a single-action timer). */
  void onWake(Runnable wakeTimer) {
    this.wakeTimer = wakeTimer;
  }

  /** Runs the due workers. */
  void tick(BooleanSupplier stopping) {
    if (!ticking.compareAndSet(false, true)) {
      again = true;
      return;
    }
    try {
      do {
        again = false;
        for (Entry entry : entries) {
          if (stopping.getAsBoolean()) {
            return;
          }
          if (System.nanoTime() - entry.dueNanos >= 0) {
            Duration delay = entry.worker.settings().pollInterval();
            try {
              delay = entry.worker.run(stopping);
            } catch (RuntimeException | LinkageError | AssertionError e) {
              LOG.log(Level.WARNING, "Outbox '" + entry.worker.outbox() + "', partition " + entry.worker.partition()
                  + ": the worker failed unexpectedly; it runs again after the poll interval", e);
            }
            entry.dueNanos = System.nanoTime() + delay.toNanos();
          }
        }
      } while (again);
    } finally {
      ticking.set(false);
    }
  }

  void wake(String outbox, int partition) {
    for (Entry entry : entries) {
      if (entry.worker.outbox().equals(outbox) && (partition < 0 || entry.worker.partition() == partition)) {
        entry.dueNanos = System.nanoTime();
      }
    }
    again = true;
    wakeTimer.run();
  }

  boolean isTicking() {
    return ticking.get();
  }

  private static final class Entry {
    final PartitionWorker worker;
    volatile long dueNanos = System.nanoTime();

    Entry(PartitionWorker worker) {
      this.worker = worker;
    }
  }
}
