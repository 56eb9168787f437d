package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.Durations;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.publish.Codecs;
import dev.outboxer.cdi.internal.store.MessageStore;
import dev.outboxer.cdi.internal.store.OutboxMessageEntity;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * One batch of one partition, in one JTA transaction: claim the partition (skipping it if another
 * worker holds it), read its ready rows by id, hand them to the relay, delete what the relay
 * confirmed, record failures, commit. If the commit fails, nothing of it happened and the same rows
 * are read again: the whole batch is delivered again, in the same order.
 */
@ApplicationScoped
public class BatchProcessor {

  /** The transaction outlives the relay's timeout by this much, to leave room for the database work. */
  private static final Duration TRANSACTION_MARGIN = Duration.ofSeconds(30);

  @Inject Transactions transactions;
  @Inject EntityManagerLookup entityManagers;
  @Inject MessageStore store;
  @Inject Codecs codecs;
  @Inject TimeSource time;

  private final Watchdog watchdog = new Watchdog();

  BatchResult process(OutboxSettings settings, int partition, Relay relay) throws Exception {
    return transactions.inNewTransaction(settings.relayTimeout().plus(TRANSACTION_MARGIN), () -> {
      EntityManager em = entityManagers.entityManager();
      if (!store.claimPartition(em, settings.name(), partition)) {
        return BatchResult.NOT_CLAIMED;
      }
      List<OutboxMessageEntity> rows = store.readBatch(em, settings, partition, time.nowUtc());
      if (rows.isEmpty()) {
        return BatchResult.EMPTY;
      }
      List<OutboxRecord> records = new ArrayList<>(rows.size());
      for (OutboxMessageEntity row : rows) {
        records.add(toRecord(row));
      }
      // The deadline is real time, not the application clock: it bounds how long this thread waits.
      PartitionBatch batch = new PartitionBatch(settings.name(), partition, settings.ordering(), records,
          Instant.now().plus(settings.relayTimeout()));
      long started = System.nanoTime();
      Throwable thrown = null;
      Watchdog.Armed armed = watchdog.arm(settings.relayTimeout(), batch::close);
      try {
        relay.relay(batch);
      } catch (Throwable failure) {
        thrown = failure;
      } finally {
        batch.close();
        if (armed.disarm()) {
          thrown = new RelayTimeoutException("The relay '" + settings.relay() + "' of outbox '" + settings.name()
              + "' did not report within " + settings.key("relay-timeout") + "="
              + Durations.format(settings.relayTimeout()), thrown);
        }
      }
      Duration relayTime = Duration.ofNanos(System.nanoTime() - started);
      Throwable unreported = thrown != null ? thrown
          : new IllegalStateException("The relay '" + settings.relay() + "' returned without reporting an outcome");
      return apply(em, settings, batch.evaluate(unreported), rows.size(), relayTime);
    });
  }

  private BatchResult apply(EntityManager em, OutboxSettings settings, PartitionBatch.Outcomes outcomes, int read,
      Duration relayTime) {
    store.delete(em, outcomes.confirmed().stream().map(OutboxRecord::id).toList());
    Instant now = time.now();
    LocalDateTime nowUtc = TimeSource.toUtc(now);
    Instant earliestRetry = null;
    int died = 0;
    for (PartitionBatch.Failure failure : outcomes.failed()) {
      int attempts = failure.record().attempts() + 1;
      LocalDateTime next = null;
      if (attempts >= settings.maxAttempts()) {
        died++;
      } else {
        Instant retryAt = now.plus(settings.backoffAfter(attempts));
        earliestRetry = earliestRetry == null || retryAt.isBefore(earliestRetry) ? retryAt : earliestRetry;
        next = TimeSource.toUtc(retryAt);
      }
      store.recordFailure(em, failure.record().id(), attempts, next, nowUtc, describe(failure.cause()));
    }
    return new BatchResult(true, read, outcomes.confirmed().size(), outcomes.failed().size(), died, earliestRetry, relayTime);
  }

  private OutboxRecord toRecord(OutboxMessageEntity row) {
    return new OutboxRecord(row.id(), row.outbox(), row.partition(), row.groupKey(), row.type(), row.contentType(),
        row.payload(), codecs.decodeHeaders(row.headers()), row.attempts(), TimeSource.fromUtc(row.createdAt()));
  }

  static String describe(Throwable cause) {
    StringBuilder text = new StringBuilder(cause.toString());
    for (Throwable inner = cause.getCause(); inner != null && inner != inner.getCause(); inner = inner.getCause()) {
      text.append(" <- ").append(inner);
    }
    return text.length() <= OutboxMessageEntity.MAX_ERROR_LENGTH ? text.toString()
        : text.substring(0, OutboxMessageEntity.MAX_ERROR_LENGTH - 3) + "...";
  }

  void shutdown() {
    watchdog.close();
  }
}
