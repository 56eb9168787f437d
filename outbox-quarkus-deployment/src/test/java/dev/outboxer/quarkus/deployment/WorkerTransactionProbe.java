package dev.outboxer.quarkus.deployment;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets a test act inside a worker's transaction, right after the relay of an outbox sent and
 * confirmed a batch and before the worker commits: hold the transaction open until released, or
 * mark it rollback-only so that its commit fails. Also records whether a JTA transaction was active
 * while the relay sent. (What the relay answers to {@link Relay#enlistsInWorkerTransaction()} is not
 * told here: another interceptor, outbox-opentelemetry's, may wrap it first and not pass it on; the
 * core asks the relay itself.)
 */
@ApplicationScoped
public class WorkerTransactionProbe implements RelayInterceptor {

  @Inject TransactionSynchronizationRegistry transactions;

  private final Map<String, Boolean> inActiveTransaction = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> rollbacksToForce = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> sent = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> released = new ConcurrentHashMap<>();

  @Override
  public Relay intercept(Relay relay, RelayContext context) {
    String outbox = context.outbox();
    return new Relay() {
      @Override
      public void relay(RelayBatch batch) throws Exception {
        relay.relay(batch);
        inActiveTransaction.put(outbox, transactions.getTransactionStatus() == Status.STATUS_ACTIVE);
        AtomicInteger rollbacks = rollbacksToForce.get(outbox);
        if (rollbacks != null && rollbacks.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          transactions.setRollbackOnly();   // the worker's commit now fails, after the relay sent and confirmed
        }
        CountDownLatch release = released.get(outbox);
        if (release != null) {
          sent.get(outbox).countDown();
          release.await(30, TimeUnit.SECONDS);
        }
      }

      @Override
      public boolean enlistsInWorkerTransaction() {
        return relay.enlistsInWorkerTransaction();
      }

      @Override
      public boolean usesWorkerTransaction() {
        return relay.usesWorkerTransaction();
      }

      @Override
      public void close() {
        relay.close();
      }
    };
  }

  /** Whether the last batch of the outbox was relayed inside an active JTA transaction. */
  boolean sentInActiveTransaction(String outbox) {
    return inActiveTransaction.getOrDefault(outbox, false);
  }

  /** The next {@code count} batches of the outbox are relayed, then their transactions are marked rollback-only. */
  void failCommits(String outbox, int count) {
    rollbacksToForce.put(outbox, new AtomicInteger(count));
  }

  /** The next batch of the outbox is held open after it was sent, until {@link #release}. */
  void hold(String outbox) {
    sent.put(outbox, new CountDownLatch(1));
    released.put(outbox, new CountDownLatch(1));
  }

  /** Waits until a held batch of the outbox was sent; false if none was within the time. */
  boolean awaitSent(String outbox, long seconds) throws InterruptedException {
    return sent.get(outbox).await(seconds, TimeUnit.SECONDS);
  }

  /** Lets the held batch of the outbox commit; later batches are not held. */
  void release(String outbox) {
    CountDownLatch release = released.remove(outbox);
    if (release != null) {
      release.countDown();
    }
  }
}
