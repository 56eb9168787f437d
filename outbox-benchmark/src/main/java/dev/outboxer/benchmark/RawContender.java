package dev.outboxer.benchmark;

import dev.outboxer.testing.OutboxTestContainer;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/** The yardstick: the same SQL work by hand, through {@link RawJdbc}. */
final class RawContender {

  private final OutboxerNodes nodes;
  private final BenchSettings settings;

  RawContender(OutboxerNodes nodes) {
    this.nodes = nodes;
    this.settings = nodes.settings();
  }

  /** Fills the same backlog as Outboxer's, then drains it with one thread and one plain connection per partition. */
  DrainOutcome drain(String outbox, int backlog) throws Exception {
    double fill = nodes.fill(outbox, backlog);
    RawJdbc raw = nodes.raw();
    long[] ids = raw.idRange(outbox);
    DrainProbe probe = new DrainProbe(ids[0], ids[1] - ids[0] + 1, true);
    int partitions = OutboxerNodes.partitionsOf(outbox);
    long deadline = System.nanoTime() + settings.maxDrain().toNanos();
    Parallel.run(partitions, "raw-drain", partition -> {
      try (Connection connection = raw.connect()) {
        raw.drainPartition(connection, outbox, partition, settings.batchSize(), probe,
            () -> System.nanoTime() < deadline);
      }
    });
    boolean finished = probe.committed() == backlog;
    long left = raw.count(outbox);
    if (left != backlog - probe.committed()) {
      throw new IllegalStateException("The raw drain committed " + probe.committed() + " of " + backlog
          + " messages but " + left + " rows are left");
    }
    return DrainOutcome.of(probe, backlog, finished).filledIn(fill);
  }

  /**
   * Messages per second: the publish-only node's JTA transactions (Narayana and the same Agroal
   * pool as Outboxer's publish), each with one plain JDBC INSERT of the row Outboxer would write.
   */
  double publish(int threads, boolean synchronousCommit, int messages) throws Exception {
    OutboxTestContainer node = nodes.publisher(synchronousCommit);
    DataSource pool = node.dataSource();
    UserTransaction transaction = node.select(UserTransaction.class);
    RawJdbc raw = nodes.raw();
    RawJdbc.Template template = nodes.template(OutboxerNodes.ONE_PARTITION);
    return Publishing.measure(nodes.table(OutboxerNodes.ONE_PARTITION), threads, messages, sequence -> {
      transaction.begin();
      try (Connection connection = pool.getConnection()) {
        raw.insert(connection, template, sequence, settings.groups());
      } catch (Exception | Error e) {
        transaction.rollback();
        throw e;
      }
      transaction.commit();
    });
  }

  /**
   * The latency floor of Outboxer's design on one node, in milliseconds from just before the
   * publishing commit to the hand-over: the publish-only node's JTA transaction inserts one row
   * (as {@link #publish}); once it committed, a signal wakes a waiting thread which, on its own plain
   * connection, claims the partition, reads the rows after the last one it read, hands them over,
   * deletes them and commits ({@link RawJdbc.RawWorker}). No transaction manager, no XA, no fencing
   * token, no retry rules: what is left is the database's commit, a thread hop and one batch's
   * round trips.
   */
  List<Double> latency(int samples) throws Exception {
    OutboxTestContainer node = nodes.publisher(true);
    DataSource pool = node.dataSource();
    UserTransaction transaction = node.select(UserTransaction.class);
    RawJdbc raw = nodes.raw();
    String outbox = OutboxerNodes.ONE_PARTITION;
    RawJdbc.Template template = nodes.template(outbox);
    raw.deleteOutbox(outbox);
    Receipts receipts = new Receipts();
    Semaphore wakeUps = new Semaphore(0);
    ExecutorService workerThread = Executors.newSingleThreadExecutor();
    Future<?> worker = workerThread.submit(() -> {
      try (Connection connection = raw.connect();
          RawJdbc.RawWorker partition = raw.new RawWorker(connection, outbox, 0, settings.batchSize())) {
        while (true) {
          wakeUps.acquire();
          wakeUps.drainPermits();
          while (partition.batch(() -> { }, (ids, groups) -> {
            for (long id : ids) {
              receipts.received(id);
            }
          }, (ids, groups) -> { })) {
            // until the partition is empty
          }
        }
      }
    });
    try {
      Random pauses = new Random(42);
      List<Double> millis = new ArrayList<>();
      int warmUp = Publishing.latencyWarmUp(samples, false);
      for (int i = 0; i < warmUp + samples; i++) {
        Thread.sleep(Publishing.latencyPauseMillis(pauses, false));
        transaction.begin();
        long id;
        try (Connection connection = pool.getConnection()) {
          raw.insert(connection, template, i, settings.groups());
          id = raw.lastInsertedId(connection);
        } catch (Exception | Error e) {
          transaction.rollback();
          throw e;
        }
        long beforeCommit = System.nanoTime();
        transaction.commit();
        wakeUps.release();
        long received = receipts.await(id, LATENCY_TIMEOUT);
        if (i >= warmUp) {
          millis.add((received - beforeCommit) / 1e6);
        }
        if (worker.isDone()) {
          worker.get();
        }
      }
      return millis;
    } finally {
      worker.cancel(true);
      workerThread.shutdownNow();
      workerThread.awaitTermination(10, TimeUnit.SECONDS);
      raw.deleteOutbox(outbox);
    }
  }

  private static final Duration LATENCY_TIMEOUT = Duration.ofSeconds(60);
}
