package dev.outboxer.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor (configured through the outbox, {@code
 * outbox.<name>.kafka.interceptor.classes}) that lets a test stall one node's relay inside {@code
 * send()}, on the worker's own thread, as a paused JVM would stall it, and counts the records the
 * brokers acknowledged. Kafka creates the instances, so the switches are static: one test uses them
 * at a time, and {@link #reset()} clears them.
 */
public final class StallingInterceptor implements ProducerInterceptor<String, byte[]> {

  private static final AtomicReference<Gate> NEXT_SEND = new AtomicReference<>();
  private static final AtomicInteger ACKS = new AtomicInteger();

  /** A point where a thread stops until the test lets it go on. */
  static final class Gate {
    private static final Duration LONGEST = Duration.ofSeconds(60);
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /** Called by the stalled thread: waits until released (a minute at most). */
    void stall() {
      reached.countDown();
      try {
        if (!released.await(LONGEST.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("the test never released the stalled node");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while stalled", e);
      }
    }

    /** Waits until a thread is stalled here; false if none came within the timeout. */
    boolean awaitReached(Duration timeout) throws InterruptedException {
      return reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void release() {
      released.countDown();
    }
  }

  /** The next {@code send()} through an instance of this interceptor stalls at the gate. */
  static Gate stallNextSend() {
    Gate gate = new Gate();
    NEXT_SEND.set(gate);
    return gate;
  }

  /** Records acknowledged without error since the last {@link #reset()}. */
  static int acks() {
    return ACKS.get();
  }

  static void reset() {
    Gate pending = NEXT_SEND.getAndSet(null);
    if (pending != null) {
      pending.release();
    }
    ACKS.set(0);
  }

  @Override
  public ProducerRecord<String, byte[]> onSend(ProducerRecord<String, byte[]> record) {
    Gate gate = NEXT_SEND.getAndSet(null);
    if (gate != null) {
      gate.stall();
    }
    return record;
  }

  @Override
  public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    if (exception == null) {
      ACKS.incrementAndGet();
    }
  }

  @Override
  public void close() {}

  @Override
  public void configure(Map<String, ?> configs) {}
}
