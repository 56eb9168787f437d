package dev.outboxer.cdi.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real scheduled executor that can be told to refuse one {@code schedule} call, as a managed
 * executor does when it is overloaded or being reconfigured. The refusal is aimed at the call made
 * from a given thread, so that a test hits the one worker it woke up itself.
 */
public final class RejectingScheduler extends ScheduledThreadPoolExecutor {

  private static final AtomicInteger THREADS = new AtomicInteger();

  private volatile Thread rejectFrom;
  private volatile CountDownLatch rejected = new CountDownLatch(1);

  public RejectingScheduler(int threads) {
    super(threads, runnable -> {
      Thread thread = new Thread(runnable, "test-scheduler-" + THREADS.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /** The next {@code schedule} call made by this thread throws RejectedExecutionException. */
  public void rejectNextScheduleFrom(Thread thread) {
    rejected = new CountDownLatch(1);
    rejectFrom = thread;
  }

  /** Whether the armed refusal has happened. */
  public boolean hasRejected() {
    return rejected.getCount() == 0;
  }

  /** Disarms a refusal that has not happened yet. */
  public void disarm() {
    rejectFrom = null;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    if (rejectFrom != null && rejectFrom == Thread.currentThread()) {
      rejectFrom = null;
      rejected.countDown();
      throw new RejectedExecutionException("the test's scheduler refuses this run once");
    }
    return super.schedule(command, delay, unit);
  }
}
