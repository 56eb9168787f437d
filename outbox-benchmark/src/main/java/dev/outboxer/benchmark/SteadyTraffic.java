package dev.outboxer.benchmark;

import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Publishes at a steady rate into one outbox from a publish-only node while a worker node relays
 * it, recording every message in a {@link TrafficLedger}: {@code threads} threads, each committing
 * a transaction of {@code perTransaction} messages on its own schedule. A thread that falls behind
 * its schedule does not burst to catch up (that would measure the burst): it starts its next
 * transaction at once and the tick counts as late; the achieved rate is reported next to the target.
 */
final class SteadyTraffic implements AutoCloseable {

  private final OutboxTestContainer publisher;
  private final String outbox;
  private final int groups;
  private final TrafficLedger ledger;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong lateTicks = new AtomicLong();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final long startNanos;
  private volatile long stopNanos;

  private SteadyTraffic(OutboxTestContainer publisher, String outbox, int groups, TrafficLedger ledger,
      long startNanos) {
    this.publisher = publisher;
    this.outbox = outbox;
    this.groups = groups;
    this.ledger = ledger;
    this.startNanos = startNanos;
  }

  /**
   * Starts publishing at once.
   *
   * @param ratePerSecond messages per second, all threads together
   */
  static SteadyTraffic start(OutboxTestContainer publisher, String outbox, int groups, TrafficLedger ledger,
      long startNanos, double ratePerSecond, int threadCount, int perTransaction) {
    if (ratePerSecond <= 0 || threadCount < 1 || perTransaction < 1) {
      throw new IllegalArgumentException("rate " + ratePerSecond + ", threads " + threadCount + ", per transaction "
          + perTransaction + ": all must be positive");
    }
    SteadyTraffic traffic = new SteadyTraffic(publisher, outbox, groups, ledger, startNanos);
    long intervalNanos = Math.round(1e9 * perTransaction * threadCount / ratePerSecond);
    for (int t = 0; t < threadCount; t++) {
      long offset = intervalNanos * t / threadCount;
      Thread thread = new Thread(() -> traffic.publishLoop(intervalNanos, offset, perTransaction),
          "steady-publisher-" + t);
      thread.setDaemon(true);
      traffic.threads.add(thread);
    }
    traffic.threads.forEach(Thread::start);
    return traffic;
  }

  private void publishLoop(long intervalNanos, long offsetNanos, int perTransaction) {
    Outbox api = publisher.select(Outbox.class);
    UserTransaction transaction = publisher.select(UserTransaction.class);
    long due = startNanos + offsetNanos;
    long[] ids = new long[perTransaction];
    try {
      while (running.get()) {
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
          continue;
        }
        if (wait < -intervalNanos) {
          lateTicks.incrementAndGet();
          due = System.nanoTime();
        }
        transaction.begin();
        long beforeCommit;
        try {
          for (int i = 0; i < perTransaction; i++) {
            ids[i] = api.publish(outbox, BenchMessage.of(sequence.getAndIncrement(), groups));
          }
          beforeCommit = System.nanoTime();
          for (long id : ids) {
            ledger.publishing(id, beforeCommit);
          }
        } catch (Exception | Error e) {
          transaction.rollback();
          throw e;
        }
        try {
          transaction.commit();
        } catch (Exception e) {
          for (long id : ids) {
            ledger.rolledBack(id);
          }
          throw e;
        }
        for (long id : ids) {
          ledger.committed(id);
        }
        due += intervalNanos;
      }
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
      running.set(false);
    }
  }

  /** Stops the publishers, waits for their last transaction, and fails if one of them failed. */
  void stop() throws InterruptedException {
    running.set(false);
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    if (stopNanos == 0) {
      stopNanos = System.nanoTime();
    }
    Throwable failed = failure.get();
    if (failed != null) {
      throw new IllegalStateException("A publisher failed: " + failed, failed);
    }
  }

  /** Whether a publisher failed (the run should stop). */
  boolean failed() {
    return failure.get() != null;
  }

  /** Messages per second committed from the start until now or the stop. */
  double achievedRate() {
    long end = stopNanos == 0 ? System.nanoTime() : stopNanos;
    return ledger.publishedCount() / ((end - startNanos) / 1e9);
  }

  long lateTicks() {
    return lateTicks.get();
  }

  /** An id below every id the next publish gets: the sequence's current value (PostgreSQL) or its next one (MariaDB). */
  static long idBase(TestDatabase database) throws SQLException {
    try (Connection connection = database.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(database == TestDatabase.POSTGRESQL
            ? "SELECT last_value FROM outbox_message_seq" : "SELECT NEXT VALUE FOR outbox_message_seq")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /**
   * Waits until every message the ledger saw published reached the relay and the outbox holds no
   * row; false if that took longer than {@code max}.
   */
  static boolean awaitDrained(RawJdbc raw, String outbox, TrafficLedger ledger, java.time.Duration max)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline) {
      if (ledger.lostCount() == 0 && raw.count(outbox) == 0) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread thread : threads) {
      thread.join(60_000);
    }
  }
}
