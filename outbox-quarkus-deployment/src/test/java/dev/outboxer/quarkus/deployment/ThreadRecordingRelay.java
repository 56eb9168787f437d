package dev.outboxer.quarkus.deployment;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.testing.RecordingRelay;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The custom {@code @Named} relay of the test application: the test kit's {@link RecordingRelay}
 * (order, confirmations), plus the names of the threads the workers relayed on.
 */
@ApplicationScoped
@Named("thread-recording")
public class ThreadRecordingRelay implements Relay {

  @Inject RecordingRelay recording;
  private final Set<String> threads = ConcurrentHashMap.newKeySet();

  @Override
  public void relay(RelayBatch batch) throws Exception {
    threads.add(Thread.currentThread().getName());
    recording.relay(batch);
  }

  /** The names of the threads the workers relayed on. */
  Set<String> threads() {
    return Set.copyOf(threads);
  }
}
