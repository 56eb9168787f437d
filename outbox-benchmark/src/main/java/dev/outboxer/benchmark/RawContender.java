package dev.outboxer.benchmark;

import dev.outboxer.testing.OutboxTestContainer;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
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
}
