package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 28 (latency): a relay that says it does not use the worker's transaction has its batches
 * run in plain database transactions, with no JTA transaction on the thread while it relays; any
 * other relay still gets the JTA transaction; and fencing holds on the plain path: a worker whose
 * claim was taken over commits nothing.
 */
abstract class PlainWorkerTransactionContractTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** The logger of the start-up line that says which transactions an outbox's batches run in (tests log WARNING only). */
  private static final java.util.logging.Logger WORKERS_LOG = java.util.logging.Logger.getLogger(Workers.class.getName());

  private LogCapture logs;
  private Level workersLevel;

  abstract TestDatabase database();

  /** A query for the id of the session that changed rows in a transaction still open (the worker holding its claim). */
  abstract String claimHolderSql();

  /** A statement that ends the session with this id. */
  abstract String killSql(long sessionId);

  @BeforeEach
  void clean() {
    logs = LogCapture.start();
    ScriptedRelay.reset();
    workersLevel = WORKERS_LOG.getLevel();
    WORKERS_LOG.setLevel(Level.INFO);
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    ScriptedRelay.useWorkerTransaction(true);
    WORKERS_LOG.setLevel(workersLevel);
    logs.close();
  }

  private OutboxTestContainer node() {
    return node(OutboxTestContainer.builder(database()).viaDataSource(), Map.of());
  }

  private OutboxTestContainer node(OutboxTestContainer.Builder builder, Map<String, String> extra) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.plain.relay", "scripted");
    config.put("outbox.plain.poll-interval", "50ms");
    config.put("outbox.plain.max-poll-interval", "100ms");
    config.put("outbox.plain.backoff.min", "100ms");
    config.put("outbox.plain.backoff.max", "100ms");
    config.put("outbox.plain.relay-timeout", "30s");
    config.put("outbox.plain.transaction-timeout", "60s");
    config.putAll(extra);
    return builder.config(config).beans(ScriptedRelay.class).start();
  }

  /** The JTA status of the relaying thread, as the transaction manager sees it, for each batch. */
  private static List<String> recordJtaStatusDuringRelay() {
    List<String> statuses = new CopyOnWriteArrayList<>();
    ScriptedRelay.script((batch, node) -> {
      int status = jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
          .getTransactionStatus();
      boolean managerHasOne = com.arjuna.ats.jta.TransactionManager.transactionManager().getTransaction() != null;
      statuses.add(Transactions.statusName(status) + (managerHasOne ? " (transaction manager: a transaction)"
          : " (transaction manager: none)"));
      ScriptedRelay.sendAll(batch, node);
    });
    return statuses;
  }

  @Test
  void a_relay_that_does_not_use_the_worker_transaction_relays_with_no_jta_transaction_and_its_batch_commits()
      throws Exception {
    ScriptedRelay.useWorkerTransaction(false);
    List<String> statuses = recordJtaStatusDuringRelay();
    try (OutboxTestContainer node = node()) {
      Outbox outbox = node.select(Outbox.class);
      List<Long> ids = node.inTransaction(() -> List.of(outbox.publish("plain", Headered.key("a")),
          outbox.publish("plain", Headered.key("a"))));
      Eventually.until(WAIT, "the batch is relayed and its deletion committed",
          () -> Rows.messages(database(), "plain") == 0, logs::dump);
      assertThat(ScriptedRelay.deliveredIdsByGroup().get("a")).isEqualTo(ids);
      assertThat(statuses).as("the JTA status during relay()").isNotEmpty()
          .allSatisfy(status -> assertThat(status).isEqualTo("STATUS_NO_TRANSACTION (transaction manager: none)"));
      assertThat(logs.messages(Level.INFO)).as(logs.dump()).anySatisfy(message -> assertThat(message)
          .contains("Outbox 'plain'", "does not use the worker's transaction", "plain database transactions"));
    }
  }

  @Test
  void a_relay_that_may_use_the_worker_transaction_still_relays_inside_it() throws Exception {
    ScriptedRelay.useWorkerTransaction(true);
    assertRelayedInsideJtaTransactions(OutboxTestContainer.builder(database()).viaDataSource(), Map.of());
  }

  /** Publishes one message on a node started with these settings, and checks that its relay ran in the JTA transaction. */
  private void assertRelayedInsideJtaTransactions(OutboxTestContainer.Builder builder, Map<String, String> extra)
      throws Exception {
    List<String> statuses = recordJtaStatusDuringRelay();
    try (OutboxTestContainer node = node(builder, extra)) {
      Outbox outbox = node.select(Outbox.class);
      node.inTransaction(() -> outbox.publish("plain", Headered.key("a")));
      Eventually.until(WAIT, "the batch is relayed and its deletion committed",
          () -> Rows.messages(database(), "plain") == 0, logs::dump);
      assertThat(statuses).as("the JTA status during relay()").isNotEmpty()
          .allSatisfy(status -> assertThat(status).isEqualTo("STATUS_ACTIVE (transaction manager: a transaction)"));
    }
  }

  @Test
  void worker_transaction_jta_keeps_the_batches_of_a_relay_that_does_not_use_it_in_jta_transactions()
      throws Exception {
    ScriptedRelay.useWorkerTransaction(false);
    assertRelayedInsideJtaTransactions(OutboxTestContainer.builder(database()).viaDataSource(),
        Map.of("outbox.plain.worker-transaction", "jta"));
  }

  @Test
  void through_an_entity_manager_the_batches_stay_in_jta_transactions_and_the_log_names_the_data_source_key()
      throws Exception {
    ScriptedRelay.useWorkerTransaction(false);
    assertRelayedInsideJtaTransactions(OutboxTestContainer.builder(database()), Map.of());
    assertThat(logs.messages(Level.INFO)).as(logs.dump()).anySatisfy(message -> assertThat(message)
        .contains("Outbox 'plain'", "does not use the worker's transaction", "its batches run in JTA transactions",
            "outbox.datasource"));
  }

  /**
   * The worker's session is ended while its relay holds the batch, and the partition is taken
   * over; the relay then confirms every record in time. The stale worker must commit nothing (its
   * deletes would otherwise remove rows the new owner has not settled), and the batch goes out
   * again, whole and in order, once the partition is free.
   */
  @Test
  void a_stale_worker_on_a_plain_transaction_cannot_commit_after_its_claim_is_taken_over() throws Exception {
    ScriptedRelay.useWorkerTransaction(false);
    CountDownLatch relaying = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    ScriptedRelay.script((batch, node) -> {
      if (first.compareAndSet(true, false)) {
        relaying.countDown();
        assertThat(goOn.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      }
      ScriptedRelay.sendAll(batch, node);
    });
    try (OutboxTestContainer node = node()) {
      Outbox outbox = node.select(Outbox.class);
      List<Long> ids = node.inTransaction(() -> List.of(outbox.publish("plain", Headered.key("g")),
          outbox.publish("plain", Headered.key("g")), outbox.publish("plain", Headered.key("g"))));
      assertThat(relaying.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the relay has the batch").isTrue();

      try (Connection takeover = database().connect()) {
        takeover.setAutoCommit(false);
        long holder = claimHolder(takeover);
        try (Statement statement = takeover.createStatement()) {
          statement.execute(killSql(holder));
        }
        takeover.commit();
        // The partition's row lock is free once the database has ended the session: take the partition over.
        Eventually.until(WAIT, "the partition can be taken over", () -> lockPartition(takeover), logs::dump);
        goOn.countDown();
        Eventually.until(WAIT, "the stale worker's batch fails", () -> logs.messages(Level.WARNING).stream()
            .anyMatch(message -> message.contains("Outbox 'plain'") && message.contains("nothing of it was committed")),
            logs::dump);
        assertThat(pendingIds()).as("rows after the stale worker's confirmed batch; " + logs.dump())
            .containsExactlyElementsOf(ids);
        takeover.rollback();
      }
      Eventually.until(WAIT, "the batch goes out again once the partition is free",
          () -> Rows.messages(database(), "plain") == 0, logs::dump);
      List<Long> twice = new ArrayList<>(ids);
      twice.addAll(ids);
      assertThat(ScriptedRelay.deliveredIdsByGroup().get("g")).as("the whole batch again, in order").isEqualTo(twice);
    }
  }

  /**
   * The transaction timeout holds without a transaction manager: a relay stuck past it, deaf to
   * interrupts, does not keep the partition locked (on MariaDB nothing but Outboxer's own reaper
   * ends the transaction; on PostgreSQL the claim's idle timeout would too).
   */
  @Test
  void a_batch_transaction_that_outlives_its_timeout_is_ended_while_the_relay_is_still_stuck() throws Exception {
    ScriptedRelay.useWorkerTransaction(false);
    CountDownLatch relaying = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    ScriptedRelay.script((batch, node) -> {
      if (first.compareAndSet(true, false)) {
        relaying.countDown();
        boolean over = false;
        while (!over) {
          try {
            over = released.await(WAIT.toSeconds(), TimeUnit.SECONDS);
          } catch (InterruptedException ignored) {
            // stuck in a call that ignores interrupts: the relay timeout cannot end it
          }
        }
      }
      ScriptedRelay.sendAll(batch, node);
    });
    Map<String, String> timeouts = Map.of("outbox.plain.relay-timeout", "1s", "outbox.plain.transaction-timeout", "3s");
    try (OutboxTestContainer node = node(OutboxTestContainer.builder(database()).viaDataSource(), timeouts)) {
      Outbox outbox = node.select(Outbox.class);
      long id = node.inTransaction(() -> outbox.publish("plain", Headered.key("g")));
      assertThat(relaying.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the relay has the batch").isTrue();
      long stuckSince = System.nanoTime();
      try (Connection other = database().connect()) {
        other.setAutoCommit(false);
        Eventually.until(Duration.ofSeconds(10), "the partition is free while the relay is still stuck",
            () -> lockPartition(other), logs::dump);
        long freedAfterMillis = (System.nanoTime() - stuckSince) / 1_000_000;
        assertThat(released.getCount()).as("the relay is still stuck").isEqualTo(1);
        assertThat(freedAfterMillis).as("ms until the partition was free; the transaction timeout is 3s")
            .isLessThan(6_000);
        other.rollback();
      } finally {
        released.countDown();
      }
      Eventually.until(WAIT, "the message is relayed afterwards", () -> Rows.message(database(), id) == null,
          logs::dump);
    }
  }

  private long claimHolder(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(claimHolderSql())) {
      assertThat(rows.next()).as("a session holds the claim").isTrue();
      long id = rows.getLong(1);
      assertThat(rows.next()).as("one session holds a claim").isFalse();
      return id;
    }
  }

  private static boolean lockPartition(Connection connection) {
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT fencing_token FROM outbox_partition WHERE outbox = 'plain' AND partition_no = 0 FOR UPDATE NOWAIT");
        ResultSet rows = statement.executeQuery()) {
      return rows.next();
    } catch (SQLException held) {
      try {
        connection.rollback();
      } catch (SQLException ignored) {
        // the next attempt begins anew
      }
      return false;
    }
  }

  private List<Long> pendingIds() {
    return Rows.query(database(), "SELECT id FROM outbox_message WHERE outbox = 'plain' ORDER BY id").stream()
        .map(row -> ((Number) row.values().iterator().next()).longValue()).toList();
  }
}
