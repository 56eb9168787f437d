package dev.outboxer.health;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.PartitionStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The backlog as the checks see it: read from the database through {@link OutboxAdmin} at most once
 * per {@code outbox.health.refresh-interval} per outbox, so that frequent probes (Kubernetes probes
 * every few seconds, on every node) do not each count the outbox table. A failed read is kept for
 * the same time, so that a database in trouble is not hammered by probes either.
 */
@ApplicationScoped
class BacklogCache {

  /** A value read at some time, or the failure of that read. */
  record Read<T>(T value, RuntimeException failure, long readAtNanos) {
    T orThrow() {
      if (failure != null) {
        throw failure;
      }
      return value;
    }
  }

  @Inject OutboxAdmin admin;
  @Inject HealthConfiguration configuration;

  private final Map<String, Read<List<PartitionStatus>>> partitions = new ConcurrentHashMap<>();
  private final Map<String, Read<OutboxCounts>> counts = new ConcurrentHashMap<>();
  private final Map<String, Read<java.util.SortedMap<Integer, dev.outboxer.PreparedTransaction>>> prepared =
      new ConcurrentHashMap<>();
  /** One entry (key ""): the transaction belongs to the database, not to an outbox. */
  private final Map<String, Read<java.util.Optional<dev.outboxer.OpenTransaction>>> openTransactions =
      new ConcurrentHashMap<>();

  /** The oldest transaction on another session of the database (PostgreSQL), at most a refresh interval old. */
  Read<java.util.Optional<dev.outboxer.OpenTransaction>> oldestOpenTransaction() {
    return cached(openTransactions, "", admin::oldestOpenTransaction);
  }

  /** The outbox's partitions with their backlog, at most a refresh interval old. */
  Read<List<PartitionStatus>> partitions(String outbox) {
    return cached(partitions, outbox, () -> admin.partitions(outbox));
  }

  /** The outbox's counts (and lag), at most a refresh interval old. */
  Read<OutboxCounts> counts(String outbox) {
    return cached(counts, outbox, () -> admin.counts(outbox));
  }

  /** The prepared transactions holding partitions of the outbox, at most a refresh interval old. */
  Read<java.util.SortedMap<Integer, dev.outboxer.PreparedTransaction>> preparedTransactions(String outbox) {
    return cached(prepared, outbox, () -> admin.preparedTransactions(outbox));
  }

  private <T> Read<T> cached(Map<String, Read<T>> cache, String outbox, Supplier<T> reader) {
    long maxAge = configuration.settings().refreshInterval().toNanos();
    Read<T> current = cache.get(outbox);
    if (current != null && System.nanoTime() - current.readAtNanos() < maxAge) {
      return current;
    }
    // One read at a time: probes arriving meanwhile wait for it and use it rather than read again.
    synchronized (cache) {
      current = cache.get(outbox);
      if (current != null && System.nanoTime() - current.readAtNanos() < maxAge) {
        return current;
      }
      Read<T> fresh;
      try {
        fresh = new Read<>(reader.get(), null, System.nanoTime());
      } catch (RuntimeException e) {
        fresh = new Read<>(null, e, System.nanoTime());
      }
      cache.put(outbox, fresh);
      return fresh;
    }
  }
}
