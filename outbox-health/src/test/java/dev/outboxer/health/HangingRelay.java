package dev.outboxer.health;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A relay ({@code outbox.<name>.relay=hanging}) that delivers every record, except that the next
 * batch after {@link #hangNextBatch()} hangs, ignoring interrupts, until {@link #release()}: the
 * stuck relay the core's watchdog cannot stop and its supervisor has to replace.
 */
@ApplicationScoped
@Named("hanging")
public class HangingRelay implements Relay {

  private final AtomicBoolean hangNext = new AtomicBoolean();
  private final List<OutboxRecord> delivered = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch hanging = new CountDownLatch(1);
  private volatile CountDownLatch release = new CountDownLatch(1);
  private volatile Thread hungThread;

  @Override
  public void relay(RelayBatch batch) {
    if (hangNext.compareAndSet(true, false)) {
      hungThread = Thread.currentThread();
      hanging.countDown();
      boolean interrupted = false;
      while (release.getCount() > 0) {
        try {
          release.await();
        } catch (InterruptedException ignored) {
          interrupted = true; // the watchdog's interrupt: ignored, as a relay stuck in native I/O would
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    for (OutboxRecord record : batch.records()) {
      if (!batch.heldBack(record)) {
        delivered.add(record);
        batch.confirm(record);
      }
    }
  }

  /** The next batch hangs; the returned latch opens when it does. */
  CountDownLatch hangNextBatch() {
    hanging = new CountDownLatch(1);
    release = new CountDownLatch(1);
    hangNext.set(true);
    return hanging;
  }

  /** Lets a hanging batch return. */
  void release() {
    release.countDown();
  }

  /**
   * Whether the thread of the batch that hung has left Outboxer's code since (the worker the
   * supervisor gave up on finished its batch): only then may the container close under it. There
   * is no other signal: the core no longer lists that worker.
   */
  boolean hungWorkerFinished() {
    Thread thread = hungThread;
    return thread == null || release.getCount() == 0
        && java.util.Arrays.stream(thread.getStackTrace()).noneMatch(e -> e.getClassName().startsWith("dev.outboxer."));
  }

  List<OutboxRecord> delivered() {
    return List.copyOf(delivered);
  }
}
