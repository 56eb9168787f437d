package dev.outboxer.chaos;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.local.HandlesOutbox;
import dev.outboxer.local.OutboxHandler;
import dev.outboxer.spi.OutboxRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The handler of the chaos suite's {@code relay=local} runs: records each message it handles as a
 * row of {@code chaos_handled} in the <em>outbox</em> database, through the outbox's EntityManager,
 * that is inside the worker's JTA transaction. The row commits if and only if the message's
 * deletion commits, so the checker must find every committed message there exactly once, in group
 * order.
 *
 * <p>The batch is the worker's transaction: its id, start stamp and fencing token (read from the
 * claim, which that transaction made) are kept as a resource of the transaction. Besides the
 * transactional row, every run of the handler leaves a non-transactional {@code RAN} attempt in the
 * destination database, so that the report can count the runs whose work was rolled back.
 *
 * <p>Faults, as the table relay injects them: a share {@code fail-rate} of the records throws
 * (which dooms the whole batch: the local relay rolls it back); a share {@code hang-rate} of the
 * batches hangs before their second record for {@code hang}, ignoring interrupts. Thread-safe: the
 * partition workers call it concurrently.
 */
@ApplicationScoped
@HandlesOutbox(NodeConfig.OUTBOX)
public class LocalHandler implements OutboxHandler {

  /** The stored outcome of a handler run in the destination (not transactional, not an acceptance). */
  static final String RAN = "RAN";

  private static final Object BATCH_KEY = new Object();
  private static final String INSERT = "INSERT INTO chaos_handled (ts, message_id, group_key, partition_no, token,"
      + " worker, batch_id, batch_start, batch_start_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
  private static volatile TableRelay.Context context;

  @Inject @OutboxPersistence EntityManager entityManager;

  private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
  private final AtomicLong batches = new AtomicLong();
  private volatile Random random;

  /** The handler's view of one worker transaction. */
  private static final class Batch {
    final String id;
    final long start;
    final long startMs;
    final long token;
    final boolean hangs;
    int handled;

    Batch(String id, long start, long startMs, long token, boolean hangs) {
      this.id = id;
      this.start = start;
      this.startMs = startMs;
      this.token = token;
      this.hangs = hangs;
    }
  }

  static void use(TableRelay.Context workerContext) {
    context = workerContext;
  }

  @Override
  public void handle(OutboxRecord record) throws Exception {
    TableRelay.Context c = context;
    if (c == null) {
      throw new IllegalStateException("The chaos local handler runs only in a chaos worker process (WorkerMain sets"
          + " its context); message " + record.id() + " of outbox '" + record.outbox() + "' reached it elsewhere");
    }
    Connection connection = take(c);
    boolean healthy = false;
    try {
      Batch batch = batch(c, connection, record);
      int index = batch.handled++;
      if (batch.hangs && index == 1) {
        TableRelay.hang(c, connection, batch.id + " partition " + record.partition());
      }
      String group = record.groupKey();
      if (random(c).nextDouble() < c.settings().failRate()) {
        c.destination().attempt(connection, record.id(), group, record.partition(), batch.token, c.node(), batch.id,
            batch.start, batch.startMs, Destination.FAILED, "injected");
        healthy = true;
        throw new TableRelay.InjectedFailure("chaos: injected failure of message " + record.id() + " (group " + group
            + ") in batch " + batch.id);
      }
      long delay = c.settings().recordDelay().toMillis();
      if (delay > 0) {
        Thread.sleep(delay);
      }
      long ts = c.destination().now(connection);
      Object[] row = {ts, record.id(), group, record.partition(), batch.token, c.node(), batch.id, batch.start,
          batch.startMs};
      if (c.settings().localWriteOutside()) {
        writeOutside(c, row);
      } else {
        // In the worker's transaction: commits with the deletion of the message, or not at all.
        var insert = entityManager.createNativeQuery(INSERT);
        for (int i = 0; i < row.length; i++) {
          insert.setParameter(i + 1, row[i]);
        }
        insert.executeUpdate();
      }
      c.destination().attempt(connection, record.id(), group, record.partition(), batch.token, c.node(), batch.id,
          batch.start, batch.startMs, RAN, "row ts " + ts);
      healthy = true;
    } finally {
      give(connection, healthy);
    }
  }

  /**
   * The control ({@code local-write=outside}): the row commits on its own connection to the outbox
   * database, whatever becomes of the worker's transaction, as a handler that leaves the transaction
   * would. Runs rolled back with their batch then show as duplicates.
   */
  private static void writeOutside(TableRelay.Context c, Object[] row) throws SQLException {
    try (Connection outbox = c.databases().outbox();
        PreparedStatement insert = outbox.prepareStatement(INSERT.replaceAll("\\?\\d", "?"))) {
      for (int i = 0; i < row.length; i++) {
        insert.setObject(i + 1, row[i]);
      }
      insert.executeUpdate();
    }
  }

  /** The batch of the current transaction, started (and watched) at its first record. */
  private Batch batch(TableRelay.Context c, Connection connection, OutboxRecord record) throws SQLException {
    TransactionSynchronizationRegistry registry =
        jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry();
    Batch batch = (Batch) registry.getResource(BATCH_KEY);
    if (batch == null) {
      String id = c.node() + "/" + c.incarnation() + "/" + batches.incrementAndGet();
      long token = OutboxerTables.claimToken(entityManager, record.outbox(), record.partition());
      // Faults from here on can make this batch's work come again: the checker's window starts here.
      batch = new Batch(id, c.destination().now(connection), System.currentTimeMillis(), token,
          random(c).nextDouble() < c.settings().hangRate());
      registry.putResource(BATCH_KEY, batch);
      TableRelay.watchOutcome(c, id, record.partition());
    }
    return batch;
  }

  /** Drops and creates {@code chaos_handled} in the outbox database. */
  static void reset(Connection outbox) throws SQLException {
    outbox.setAutoCommit(true);
    try (Statement statement = outbox.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS chaos_handled");
      statement.execute("CREATE TABLE chaos_handled (ts BIGINT NOT NULL PRIMARY KEY, message_id BIGINT NOT NULL,"
          + " group_key VARCHAR(100), partition_no INTEGER NOT NULL, token BIGINT NOT NULL,"
          + " worker VARCHAR(60) NOT NULL, batch_id VARCHAR(100) NOT NULL, batch_start BIGINT NOT NULL,"
          + " batch_start_ms BIGINT NOT NULL)");
    }
  }

  /** What the handlers committed, as accepted deliveries. */
  static List<Checker.Delivery> read(Connection outbox) throws SQLException {
    List<Checker.Delivery> handled = new ArrayList<>();
    try (Statement statement = outbox.createStatement();
        ResultSet rows = statement.executeQuery("SELECT ts, message_id, group_key, partition_no, token, worker,"
            + " batch_id, batch_start, batch_start_ms FROM chaos_handled ORDER BY ts")) {
      while (rows.next()) {
        handled.add(new Checker.Delivery(rows.getLong(1), rows.getLong(2), rows.getString(3), rows.getInt(4),
            rows.getLong(5), rows.getString(6), rows.getString(7), rows.getLong(8), rows.getLong(9),
            Destination.ACCEPTED));
      }
    }
    return handled;
  }

  private Random random(TableRelay.Context c) {
    Random current = random;
    if (current == null) {
      synchronized (this) {
        if (random == null) {
          random = new Random(c.settings().seed() * 1_000_003 + c.node().hashCode() * 31L + c.incarnation());
        }
        current = random;
      }
    }
    return current;
  }

  private Connection take(TableRelay.Context c) throws SQLException {
    Connection connection = idle.poll();
    return connection != null ? connection : c.databases().destination("chaos-dest-" + c.node());
  }

  private void give(Connection connection, boolean healthy) {
    if (healthy) {
      idle.add(connection);
      return;
    }
    try {
      connection.close();
    } catch (SQLException ignored) {
      // broken anyway
    }
  }
}
