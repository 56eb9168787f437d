package dev.outboxer.cdi.internal.bench;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** A relay that sends nothing and confirms everything, keeping only counts and times: the benchmark's no-op relay. */
@ApplicationScoped
@Named("counting")
public class CountingRelay implements Relay {

  private final AtomicLong confirmed = new AtomicLong();
  private final AtomicLong firstBatchNanos = new AtomicLong();
  private final AtomicLong lastBatchNanos = new AtomicLong();
  private final Map<Long, Long> handedNanos = new ConcurrentHashMap<>();
  private volatile boolean recordTimes;

  @Override
  public void relay(RelayBatch batch) {
    long now = System.nanoTime();
    firstBatchNanos.compareAndSet(0, now);
    for (OutboxRecord record : batch.records()) {
      if (recordTimes) {
        handedNanos.putIfAbsent(record.id(), now);
      }
      batch.confirm(record);
    }
    confirmed.addAndGet(batch.records().size());
    lastBatchNanos.set(System.nanoTime());
  }

  public long confirmed() {
    return confirmed.get();
  }

  public long firstBatchNanos() {
    return firstBatchNanos.get();
  }

  public long lastBatchNanos() {
    return lastBatchNanos.get();
  }

  public void recordTimes() {
    recordTimes = true;
  }

  public Long handedNanos(long id) {
    return handedNanos.get(id);
  }
}
