package dev.outboxer.kafka;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Puts a broker outage at a known point of a stream: a producer interceptor (configured through
 * the outbox, {@code outbox.<name>.kafka.interceptor.classes}) that stops the broker right after
 * the broker acknowledged the {@code n}th record of the relay's producer.
 *
 * <p>The stop runs on the producer's network thread, inside the acknowledgement: until the broker
 * is down that producer sends nothing more and reads no further responses, so the outage hits the
 * stream in the middle of a batch whatever the speed of the machine. Requests already written to
 * the socket may or may not have been appended by the broker; their acknowledgements are lost.
 *
 * <p>Kafka creates the instance, so the switch is static: one test arms it at a time.
 */
public final class StopBrokerAfterAcks implements ProducerInterceptor<String, byte[]> {

  private static final AtomicInteger ACKS = new AtomicInteger();
  private static volatile int stopAfter;
  private static volatile Runnable stop;
  private static volatile CompletableFuture<Integer> stopped = new CompletableFuture<>();

  /**
   * Arms the switch.
   *
   * @param acks the number of acknowledged records after which the broker stops
   * @param stopBroker stops the broker and returns when it is down
   * @return completes with the number of acknowledged records seen once the broker is down
   */
  static CompletableFuture<Integer> arm(int acks, Runnable stopBroker) {
    ACKS.set(0);
    stopAfter = acks;
    stop = stopBroker;
    stopped = new CompletableFuture<>();
    return stopped;
  }

  /** Disarms the switch if it has not fired. */
  static void disarm() {
    stop = null;
  }

  @Override
  public ProducerRecord<String, byte[]> onSend(ProducerRecord<String, byte[]> record) {
    return record;
  }

  @Override
  public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    Runnable armed = stop;
    if (exception != null || armed == null || ACKS.incrementAndGet() != stopAfter) {
      return;
    }
    stop = null;
    try {
      armed.run();
      stopped.complete(ACKS.get());
    } catch (RuntimeException | Error e) {
      stopped.completeExceptionally(e);
    }
  }

  @Override
  public void close() {}

  @Override
  public void configure(Map<String, ?> configs) {}
}
