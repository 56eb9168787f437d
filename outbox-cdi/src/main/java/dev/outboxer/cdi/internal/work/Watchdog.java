package dev.outboxer.cdi.internal.work;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Interrupts a worker thread whose relay call outlives its timeout, and ends a worker's plain
 * database transaction that outlives the transaction timeout ({@link
 * dev.outboxer.cdi.internal.tx.LocalTransaction}: the transaction manager's part on that path). One
 * daemon thread for the whole application: it only flips flags, calls {@link Thread#interrupt()}
 * and aborts connections, so it needs no container context.
 */
final class Watchdog implements AutoCloseable {

  private final ScheduledThreadPoolExecutor timer;

  Watchdog() {
    timer = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "outboxer-relay-watchdog");
      thread.setDaemon(true);
      return thread;
    });
    timer.setRemoveOnCancelPolicy(true);
  }

  /** Arms the watchdog for the calling thread: after {@code timeout}, {@code onExpiry} runs and the thread is interrupted. */
  Armed arm(Duration timeout, Runnable onExpiry) {
    Armed armed = new Armed(Thread.currentThread(), onExpiry);
    armed.future = timer.schedule(armed::fire, timeout.toNanos(), TimeUnit.NANOSECONDS);
    return armed;
  }

  /** Runs {@code task} once after {@code delay} on the watchdog's thread; the returned action cancels it. */
  Runnable after(Duration delay, Runnable task) {
    ScheduledFuture<?> future = timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  static final class Armed {
    private final Thread worker;
    private final Runnable onExpiry;
    private ScheduledFuture<?> future;
    private boolean fired;
    private boolean disarmed;

    private Armed(Thread worker, Runnable onExpiry) {
      this.worker = worker;
      this.onExpiry = onExpiry;
    }

    private synchronized void fire() {
      if (!disarmed) {
        fired = true;
        onExpiry.run();
        worker.interrupt();
      }
    }

    /**
     * Called by the worker when the relay returned. If the watchdog fired, its interrupt has been
     * delivered by the time this returns (both are synchronised) and is cleared here, so that it
     * cannot break the database work that follows.
     */
    synchronized boolean disarm() {
      disarmed = true;
      future.cancel(false);
      if (fired) {
        Thread.interrupted();
      }
      return fired;
    }
  }
}
