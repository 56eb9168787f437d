package dev.outboxer.benchmark;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import dev.outboxer.testing.TestDatabase;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.event.Level;

/**
 * The peer library, gruelbox transaction-outbox, the way its README sets it up for plain JDBC:
 * its own schema (created by {@link DefaultPersistor}), its {@code TransactionManager} on a
 * connection pool (Agroal, not enlisted in JTA: gruelbox manages JDBC transactions itself), a
 * no-op {@link GruelboxTask}; published with {@code schedule(...)} in a transaction, drained with
 * {@code flush()}.
 *
 * <p>gruelbox has no partitions and no ordering: "N partitions" means N threads calling {@code
 * flush()} at once (its {@code SKIP LOCKED} select lets them share the work), each processing its
 * batch on the calling thread. A publish-only node is an instance whose submitter drops the
 * immediate run after commit, so the entries wait in the table for a flush.
 *
 * <p>The instances live as long as the contender: each builds its own validator, whose first use
 * is slow, and gruelbox validates that a new entry's due time still lies in the future.
 */
final class GruelboxContender implements AutoCloseable {

  private static final int MESSAGES_PER_FILL_TRANSACTION = 1_000;
  /**
   * When a published entry is due for another instance's flush(): gruelbox's attemptFrequency of
   * the publishing instance (its default is 2 minutes). gruelbox validates that this lies in the
   * future after building the entry, which on a loaded machine can take more than 100 ms; the
   * flushing instance's clock runs this much ahead, so that for it a new entry is due at once (the
   * best case of gruelbox's path across nodes).
   */
  private static final Duration DUE_AFTER = Duration.ofSeconds(1);
  private static final Duration REMOTE_FLUSH_INTERVAL = Duration.ofMillis(500);
  private static final Duration LATENCY_TIMEOUT = Duration.ofSeconds(60);

  private final BenchSettings settings;
  private final Dialect dialect;
  private final AgroalDataSource pool;
  private final GruelboxTask task = new GruelboxTask();
  private final ExecutorService background = Executors.newSingleThreadExecutor(daemon("gruelbox-background"));
  private final ThreadLocalContextTransactionManager transactions;
  /** Publishes only: its submitter drops the run after commit. */
  private final TransactionOutbox publisher;
  /** Runs what flush() finds on the calling thread. */
  private final TransactionOutbox flusher;
  /** Runs a task right after its transaction commits, on a background thread (gruelbox's normal path). */
  private final TransactionOutbox immediate;
  private AgroalDataSource asyncCommitPool;
  private ThreadLocalContextTransactionManager asyncCommitTransactions;
  private TransactionOutbox asyncCommitPublisher;

  GruelboxContender(BenchSettings settings) throws SQLException {
    this.settings = settings;
    this.dialect = settings.database() == TestDatabase.POSTGRESQL ? Dialect.POSTGRESQL_9 : Dialect.MY_SQL_8;
    this.pool = pool(settings.database().url());
    try {
      execute("DROP TABLE IF EXISTS TXNO_OUTBOX", "DROP TABLE IF EXISTS TXNO_VERSION");
      transactions = TransactionManager.fromDataSource(pool);
      // The first instance creates the schema through gruelbox's own migrations.
      publisher = outbox(transactions, dropSubmitter(), DUE_AFTER);
      flusher = outbox(TransactionManager.fromDataSource(pool), Submitter.withExecutor(Runnable::run), settings.gruelboxRetry(),
          DUE_AFTER);
      immediate = outbox(transactions, Submitter.withExecutor(background), settings.gruelboxRetry());
      // The first validation of an entry is slow: take it now, not in a measurement.
      transactions.inTransaction(() -> schedule(publisher, 0));
      transactions.inTransaction(() -> schedule(immediate, 0));
      execute("TRUNCATE TABLE TXNO_OUTBOX");
    } catch (SQLException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Fills {@code count} entries (sequence 0 upwards) through the instance that only publishes, 1,000 per transaction. */
  double fill(int count) throws Exception {
    long began = System.nanoTime();
    execute("TRUNCATE TABLE TXNO_OUTBOX");
    for (long start = 0; start < count; start += MESSAGES_PER_FILL_TRANSACTION) {
      long from = start;
      long to = Math.min(count, start + MESSAGES_PER_FILL_TRANSACTION);
      transactions.inTransaction(() -> {
        for (long sequence = from; sequence < to; sequence++) {
          schedule(publisher, sequence);
        }
      });
    }
    execute(settings.database() == TestDatabase.POSTGRESQL ? "ANALYZE TXNO_OUTBOX" : "ANALYZE TABLE TXNO_OUTBOX");
    return (System.nanoTime() - began) / 1e9;
  }

  /** Fills a backlog, then {@code threads} threads call {@code flush()} until every message (but the failing group's) is done. */
  DrainOutcome drain(int threads, int backlog, String failingGroup) throws Exception {
    double fill = fill(backlog);
    long expected = backlog - (failingGroup == null ? 0 : messagesOfGroup(backlog, failingGroup));
    DrainProbe probe = new DrainProbe(0, backlog, false);
    task.use(probe, failingGroup, null);
    try {
      long deadline = System.nanoTime() + settings.maxDrain().toNanos();
      Parallel.run(threads, "gruelbox-flush", thread -> {
        while (probe.committed() < expected && System.nanoTime() < deadline) {
          boolean found;
          try {
            found = flusher.flush();
          } catch (RuntimeException e) {
            if (!deadlock(e)) {
              throw e;
            }
            // MariaDB: concurrent flush() calls deadlock now and then (seen with 4 threads); the flush's transaction
            // was rolled back and the scheduler loop a gruelbox user writes calls flush() again. A task run twice
            // because of it would still fail the drain (the probe sees every repeat).
            found = false;
          }
          if (!found) {
            // Nothing due: the last entries are still in another thread's batch.
            Thread.sleep(5);
          }
        }
      });
      return DrainOutcome.of(probe, expected, probe.committed() >= expected).filledIn(fill);
    } finally {
      task.use(null, null, null);
      execute("TRUNCATE TABLE TXNO_OUTBOX");
    }
  }

  private static boolean deadlock(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause instanceof java.sql.SQLTransactionRollbackException) {
        return true;
      }
    }
    return false;
  }

  /** Messages per second: {@code threads} threads, each scheduling one task per gruelbox transaction. */
  double publish(int threads, boolean synchronousCommit, int messages) throws Exception {
    ThreadLocalContextTransactionManager manager = synchronousCommit ? transactions : asyncCommitTransactions();
    TransactionOutbox outbox = synchronousCommit ? publisher : asyncCommitPublisher;
    Publishing.Table table = new Publishing.Table() {
      @Override
      public void empty() throws SQLException {
        execute("TRUNCATE TABLE TXNO_OUTBOX");
      }

      @Override
      public long count() throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
            ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM TXNO_OUTBOX")) {
          rows.next();
          return rows.getLong(1);
        }
      }
    };
    return Publishing.measure(table, threads, messages,
        sequence -> manager.inTransaction(() -> schedule(outbox, sequence)));
  }

  /**
   * Milliseconds from just before the scheduling transaction's commit to the task running. Local:
   * the same instance runs it right after the commit, on its executor. Remote: another instance
   * finds it with {@code flush()}, called every 500 ms (Outboxer's default poll interval), for
   * which the entry is due at once (see {@link #DUE_AFTER}).
   */
  Latencies latency(int localSamples, int remoteSamples) throws Exception {
    return new Latencies(samples(false, localSamples), samples(true, remoteSamples), List.of());
  }

  private List<Double> samples(boolean remote, int samples) throws Exception {
    execute("TRUNCATE TABLE TXNO_OUTBOX");
    Receipts receipts = new Receipts();
    task.use(null, null, receipts);
    Future<?> flushing = remote ? background.submit(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        flusher.flush();
        try {
          Thread.sleep(REMOTE_FLUSH_INTERVAL.toMillis());
        } catch (InterruptedException stop) {
          return;
        }
      }
    }) : null;
    TransactionOutbox outbox = remote ? publisher : immediate;
    try {
      Random pauses = new Random(42);
      List<Double> millis = new ArrayList<>();
      int warmUp = Publishing.latencyWarmUp(samples, remote);
      for (int i = 0; i < warmUp + samples; i++) {
        Thread.sleep(Publishing.latencyPauseMillis(pauses, remote));
        long sequence = i;
        long[] beforeCommit = new long[1];
        transactions.inTransaction(() -> {
          schedule(outbox, sequence);
          beforeCommit[0] = System.nanoTime();
        });
        long received = receipts.await(sequence, LATENCY_TIMEOUT);
        if (i >= warmUp) {
          millis.add((received - beforeCommit[0]) / 1e6);
        }
      }
      return millis;
    } finally {
      if (flushing != null) {
        flushing.cancel(true);
      }
      task.use(null, null, null);
      execute("TRUNCATE TABLE TXNO_OUTBOX");
    }
  }

  private void schedule(TransactionOutbox outbox, long sequence) {
    BenchMessage message = BenchMessage.of(sequence, settings.groups());
    outbox.schedule(BenchTask.class).relay(message.group(), message.sequence(), message.note());
  }

  private TransactionOutbox outbox(TransactionManager manager, Submitter submitter, Duration attemptFrequency) {
    return outbox(manager, submitter, attemptFrequency, Duration.ZERO);
  }

  private TransactionOutbox outbox(TransactionManager manager, Submitter submitter, Duration attemptFrequency,
      Duration clockAhead) {
    Clock clock = Clock.offset(Clock.systemUTC(), clockAhead);
    return TransactionOutbox.builder()
        .clockProvider(() -> clock)
        .transactionManager(manager)
        .persistor(DefaultPersistor.builder().dialect(dialect).build())
        .instantiator(Instantiator.using(type -> task))
        .submitter(submitter)
        .listener(task)
        .attemptFrequency(attemptFrequency)
        .flushBatchSize(settings.batchSize())
        // Like Outboxer's default max-attempts=infinity: a failing task is retried, never blocked.
        .blockAfterAttempts(Integer.MAX_VALUE)
        // The poison row fails tasks on purpose: keep their stack traces out of the output.
        .logLevelTemporaryFailure(Level.DEBUG)
        .build();
  }

  /** A submitter that does not run the task after commit: the entry waits in the table for flush(). */
  private static Submitter dropSubmitter() {
    return (entry, runner) -> { };
  }

  private long messagesOfGroup(int backlog, String group) {
    int index = BenchMessage.groupIndex(group);
    return backlog / settings.groups() + (index < backlog % settings.groups() ? 1 : 0);
  }

  /** Made on first use: only PostgreSQL sets synchronous_commit per connection. */
  private ThreadLocalContextTransactionManager asyncCommitTransactions() throws SQLException {
    if (asyncCommitTransactions == null) {
      asyncCommitPool = pool(OutboxerNodes.asynchronousCommitUrl(settings.database().url()));
      asyncCommitTransactions = TransactionManager.fromDataSource(asyncCommitPool);
      asyncCommitPublisher = outbox(asyncCommitTransactions, dropSubmitter(), DUE_AFTER);
      asyncCommitTransactions.inTransaction(() -> schedule(asyncCommitPublisher, 0));
      execute("TRUNCATE TABLE TXNO_OUTBOX");
    }
    return asyncCommitTransactions;
  }

  private AgroalDataSource pool(String url) throws SQLException {
    TestDatabase database = settings.database();
    return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
        .connectionPoolConfiguration(pool -> pool
            .maxSize(20)
            .acquisitionTimeout(Duration.ofSeconds(30))
            .connectionFactoryConfiguration(factory -> factory
                .jdbcUrl(url)
                .principal(new NamePrincipal(database.user()))
                .credential(new SimplePassword(database.password())))));
  }

  private void execute(String... statements) throws SQLException {
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  @Override
  public void close() {
    background.shutdownNow();
    try {
      background.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (asyncCommitPool != null) {
      asyncCommitPool.close();
    }
    pool.close();
  }
}
