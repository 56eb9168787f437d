package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.interceptor.Interceptor;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * A batch whose transaction the transaction manager rolled back (its timeout passed while the
 * worker's thread stood still: a paused JVM, a long GC) and that then failed must leave its pooled
 * thread without a transaction. Found by the JMS chaos run with ended sessions and pauses: the
 * worker skipped its rollback because the transaction had already ended, the thread stayed
 * associated with it, and every later batch that ran on that thread failed at its begin ("thread
 * is already associated with a transaction", 1,768 times in one run).
 *
 * <p>The pause: the worker reads the time right after it began the batch's transaction; a {@link
 * TimeSource} stands still there once, for twice the transaction timeout, ignoring interrupts as a
 * stopped JVM would.
 */
class TimedOutBatchTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void a_batch_rolled_back_by_its_timeout_leaves_the_worker_thread_free_for_the_next_batches() throws Exception {
    PausingTimeSource.pauses = new CountDownLatch(1);
    try (LogCapture logs = LogCapture.start();
        OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
            .config("outbox.orders.relay", "recording")
            .config("outbox.orders.partitions", "1")
            .config("outbox.orders.transaction-timeout", "2s")
            .config("outbox.orders.relay-timeout", "500ms")
            .config("outbox.orders.poll-interval", "20ms")
            .config("outbox.orders.max-poll-interval", "50ms")
            .beans(RecordingRelay.class, PausingTimeSource.class)
            .start()) {
      Outbox outbox = container.select(Outbox.class);
      RecordingRelay relay = container.select(RecordingRelay.class);
      PausingTimeSource.armed = true;
      assertThat(PausingTimeSource.pauses.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("a worker paused inside its batch's transaction").isTrue();
      // The paused batch fails (its transaction was rolled back meanwhile); the worker goes on.
      Thread.sleep(1_000);
      logs.clear();
      for (int i = 0; i < 20; i++) {
        int sequence = i;
        container.inTransaction(() -> outbox.publish("orders", new Keyed("g", sequence)));
      }
      await().atMost(WAIT).until(() -> relay.confirmed().size() >= 20);
      // Idle polls for a while: each runs on some thread of the worker pool, the paused one included.
      Thread.sleep(2_000);
      List<String> warnings = logs.messages(Level.WARNING);
      assertThat(warnings).as("no batch fails because its thread still has the timed-out transaction")
          .noneMatch(message -> message.contains("already associated"));
    } finally {
      PausingTimeSource.armed = false;
    }
  }

  /** The worker's clock, standing still once inside a batch for 4 s (twice the transaction timeout). */
  @Alternative
  @Priority(Interceptor.Priority.APPLICATION + 100)
  @ApplicationScoped
  public static class PausingTimeSource extends TimeSource {
    static volatile boolean armed;
    static volatile CountDownLatch pauses;

    @Override
    public LocalDateTime nowUtc() {
      LocalDateTime now = super.nowUtc();
      if (armed && calledByBatch() && pauses.getCount() > 0) {
        armed = false;
        pauses.countDown();
        long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        boolean interrupted = false;
        while (System.nanoTime() < until) {
          try {
            Thread.sleep(Math.max(1, (until - System.nanoTime()) / 1_000_000));
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      return now;
    }

    private static boolean calledByBatch() {
      return StackWalker.getInstance().walk(frames -> frames.anyMatch(frame ->
          frame.getClassName().equals(BatchProcessor.class.getName()) && frame.getMethodName().equals("process")));
    }
  }
}
