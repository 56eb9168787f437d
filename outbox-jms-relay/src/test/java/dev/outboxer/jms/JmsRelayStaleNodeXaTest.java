package dev.outboxer.jms;

import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_FENCING_TOKEN;
import static dev.outboxer.jms.JmsRelayTest.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.jms.Message;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Fencing with XA, end to end: two nodes (two containers, each with its own pool, workers and
 * relay) share one PostgreSQL database and relay one partition through the JMS relay with an XA
 * connection factory, so each batch commits in two phases across PostgreSQL and Artemis.
 *
 * <p>Node A's worker sends its batch (enlisted) and deletes the rows; before it commits, its
 * database connection is killed ({@code pg_terminate_backend}, as a database failover or an
 * operator would). Its claim is gone with the connection, though A does not know it yet: node B
 * claims the partition with a higher fencing token and relays the rows A had sent plus newer ones.
 * Then A commits: its database branch is gone, so the transaction rolls back on the broker too. A
 * consumer never receives A's messages and receives B's once, in order. No relay-level check is
 * involved: the two-phase commit alone fences A.
 */
class JmsRelayStaleNodeXaTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String QUEUE = "outbox.orders";

  @Test
  void a_node_whose_connection_died_before_its_commit_never_delivers_and_the_next_owner_does()
      throws Exception {
    Map<String, String> config = new LinkedHashMap<>();
    JmsRelayThroughOutboxTest.outboxConfig(
        config, "orders", 1, OutboxMessaging.PROBED_XA_FACTORY, "jms/orders");
    HeldCommit held = new HeldCommit();
    AtomicReference<Synchronization> firstBatchOnly = new AtomicReference<>(held);
    Logger narayana = Logger.getLogger("com.arjuna");
    Level narayanaLevel = narayana.getLevel();

    try (EmbeddedArtemis broker = EmbeddedArtemis.start();
        OutboxTestContainer nodeA = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
            .config(config).beans(OutboxMessaging.class).start()) {
      broker.createQueue(QUEUE);
      nodeA.select(OutboxMessaging.class).probe()
          .registerOnEachConnection(() -> firstBatchOnly.getAndSet(null));
      List<Long> published = new ArrayList<>(publish(nodeA, 0, 3));

      assertThat(held.awaitCommit(WAIT)).as("node A sent its batch and waits at its commit").isTrue();
      long tokenOfA = lastFencingToken(nodeA.database());

      try (OutboxTestContainer nodeB = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
          .keepSchema().config(config).beans(OutboxMessaging.class).start()) {
        published.addAll(publish(nodeB, 3, 2));
        // Narayana warns (with stack traces) about the branch whose connection is gone: expected.
        narayana.setLevel(Level.SEVERE);
        terminateBackendOfOpenBatch(nodeA.database());

        // B takes the partition over and relays everything still pending, in order, once.
        List<Message> received = receive(broker, published.size());
        assertThat(ids(received)).isEqualTo(published);
        for (Message message : received) {
          assertThat(message.getLongProperty(OUTBOX_FENCING_TOKEN)).as("token of B's claim")
              .isGreaterThan(tokenOfA);
        }

        // A resumes and commits: its database branch is gone, so nothing of it commits.
        held.open();
        assertThat(held.completion()).isEqualTo(Status.STATUS_ROLLEDBACK);
        OutboxAdmin admin = nodeB.select(OutboxAdmin.class);
        await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
        assertThat(broker.receive(QUEUE, 1, 1_000)).as("nothing from node A, ever").isEmpty();
        assertThat(broker.messageCount(QUEUE)).isZero();
      }
    } finally {
      narayana.setLevel(narayanaLevel);
    }
  }

  /** Publishes {@code count} messages of one order in one transaction through a node. */
  static List<Long> publish(OutboxTestContainer node, int first, int count)
      throws Exception {
    Outbox outbox = node.select(Outbox.class);
    List<Long> ids = new ArrayList<>();
    node.inTransaction(() -> {
      for (int sequence = first; sequence < first + count; sequence++) {
        ids.add(outbox.publish(new OrderEvent("order-1", sequence)));
      }
    });
    return ids;
  }

  /** The last token handed out: node A's, taken by its claim (sequences are not transactional). */
  private static long lastFencingToken(TestDatabase database) throws Exception {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT last_value FROM outbox_fencing_seq")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /**
   * Kills the backend of the only open transaction that has written (node A's batch: it claimed the
   * partition and deleted the rows), from another connection.
   */
  private static void terminateBackendOfOpenBatch(TestDatabase database) throws Exception {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      List<Integer> pids = new ArrayList<>();
      try (ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity"
          + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
          + " AND state = 'idle in transaction' AND backend_xid IS NOT NULL")) {
        while (rows.next()) {
          pids.add(rows.getInt(1));
        }
      }
      assertThat(pids).as("open transactions that have written: node A's batch").hasSize(1);
      try (ResultSet killed = statement.executeQuery(
          "SELECT pg_terminate_backend(" + pids.get(0) + ")")) {
        killed.next();
        assertThat(killed.getBoolean(1)).isTrue();
      }
    }
  }

  private static List<Message> receive(EmbeddedArtemis broker, int count) {
    List<Message> received = new ArrayList<>();
    await().atMost(WAIT).until(() -> {
      received.addAll(broker.receive(QUEUE, count - received.size(), 100));
      return received.size() >= count;
    });
    return received;
  }

  /**
   * Holds node A's worker at its commit (after the relay sent and the rows were deleted) until
   * the test opens it; then records how the transaction ended.
   */
  private static final class HeldCommit implements Synchronization {
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);
    private final CountDownLatch completed = new CountDownLatch(1);
    private final AtomicInteger completion = new AtomicInteger(-1);

    @Override
    public void beforeCompletion() {
      reached.countDown();
      try {
        if (!opened.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never let node A commit");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted before the commit", e);
      }
    }

    @Override
    public void afterCompletion(int status) {
      completion.set(status);
      completed.countDown();
    }

    boolean awaitCommit(Duration timeout) throws InterruptedException {
      return reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void open() {
      opened.countDown();
    }

    int completion() throws InterruptedException {
      assertThat(completed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("node A's transaction completed").isTrue();
      return completion.get();
    }
  }

}
