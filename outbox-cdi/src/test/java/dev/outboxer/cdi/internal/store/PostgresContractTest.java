package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.TestDatabase;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class PostgresContractTest extends DatabaseContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  /** pg_advisory_xact_lock waits show up as ungranted advisory locks. */
  @Override
  String lockWaitsQuery() {
    return "SELECT COUNT(*) FROM pg_locks WHERE NOT granted AND locktype = 'advisory'";
  }

  /**
   * The read goes to the database with the claim, before the worker knows whether it took the
   * partition: the read itself returns nothing in a transaction that did not claim it.
   */
  @Test
  void the_read_returns_nothing_in_a_transaction_that_did_not_claim_the_partition() throws Exception {
    inTransaction(() -> outbox.publish("orders", new Keyed("unclaimed", 1)));
    for (int partition = 0; partition < 2; partition++) {
      int p = partition;
      BatchStatements.Read read = inTransaction(() -> jdbc.call(connection -> statements.read(connection, "orders", p,
          new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, true), LocalDateTime.now(ZoneOffset.UTC))));
      assertThat(read.rows()).as("partition " + p).isEmpty();
      assertThat(read.readAtMicros()).isZero();
    }
    assertThat(pendingIds(0).size() + pendingIds(1).size()).isPositive();
  }

  /**
   * The probe of running transactions (pg_stat_activity) is made only when asked for, and by the
   * claim: a statement before the read, so that whatever it finds ended is visible to the read.
   */
  @Test
  void the_claim_probes_running_transactions_only_when_asked_to() throws Exception {
    BatchStatements.ClaimedRead probed = inTransaction(() -> claimAndRead(1));
    assertThat(probed.claim().oldestRunningMicros()).isPositive();
    assertThat(probed.read().oldestRunningMicros()).as("the read no longer probes").isZero();
    BatchStatements.ClaimedRead unprobed = inTransaction(() -> jdbc.call(connection -> statements.claimAndRead(
        connection, "orders", 1, "test-node", "test-instance", LocalDateTime.now(ZoneOffset.UTC), 0,
        new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, false))));
    assertThat(unprobed.claim().oldestRunningMicros()).as("not asked for").isZero();
    assertThat(unprobed.read().readAtMicros()).as("the clock is always read").isPositive();
  }

  /**
   * Above READ COMMITTED a transaction reads one snapshot, taken at its first statement: the claim,
   * before its probe runs. A transaction the probe finds ended may have committed after that
   * snapshot, so the read would not see its rows, and a cursor settled by the probe would pass them
   * for good. So the probe says it cannot tell (0), and the cursor settles nothing.
   */
  @Test
  void above_read_committed_the_probe_cannot_tell_and_settles_nothing() throws Exception {
    for (int isolation : new int[] {java.sql.Connection.TRANSACTION_REPEATABLE_READ,
        java.sql.Connection.TRANSACTION_SERIALIZABLE}) {
      try (java.sql.Connection connection = database().connect()) {
        connection.setTransactionIsolation(isolation);
        connection.setAutoCommit(false);
        BatchStatements.ClaimedRead claimed = statements.claimAndRead(connection, "orders", 1, "test-node",
            "test-instance", LocalDateTime.now(ZoneOffset.UTC), 0,
            new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, true));
        connection.rollback();
        assertThat(claimed.claim().claimed()).isTrue();
        assertThat(claimed.claim().oldestRunningMicros()).as("isolation " + isolation).isZero();
        assertThat(claimed.claim().runningTransactions()).as("isolation " + isolation).isNull();
      }
    }
  }

  /**
   * The probe names each transaction running elsewhere by its session and its start: the same
   * transaction the same way at every probe, a later transaction of the same session differently
   * (so a cursor's checkpoint waits for the very transactions it was armed with, comparing no clocks).
   */
  @Test
  void the_probe_names_a_running_transaction_the_same_until_it_ends() throws Exception {
    try (java.sql.Connection other = database().connect()) {
      other.setAutoCommit(false);
      other.createStatement().execute("SELECT txid_current()");
      long[] first = probe();
      long[] second = probe();
      assertThat(first).as("the other session's transaction is listed").isNotEmpty();
      java.util.Set<Long> both = new java.util.HashSet<>();
      for (long transaction : first) {
        both.add(transaction);
      }
      java.util.Set<Long> again = new java.util.HashSet<>();
      for (long transaction : second) {
        again.add(transaction);
      }
      both.retainAll(again);
      assertThat(both).as("listed the same way by two probes").isNotEmpty();
      other.commit();
      other.createStatement().execute("SELECT txid_current()");
      long[] afterCommit = probe();
      for (long transaction : afterCommit) {
        assertThat(both).as("the ended transaction, whose session began another").doesNotContain(transaction);
      }
      assertThat(afterCommit).as("the session's new transaction").hasSizeGreaterThanOrEqualTo(1);
      assertThat(afterCommit).as("sorted for the cursor's binary search").isSorted();
      other.rollback();
    }
  }

  /**
   * A transaction that has written nothing and waits between two statements cannot be holding an
   * outbox id it has not written yet (every path draws its ids in a statement that writes them, or
   * makes sure of a transaction id when it draws them): a report or a forgotten {@code psql} that
   * holds a snapshot open holds back no checkpoint of the cursor, so reads do not walk what the
   * drain deleted behind it.
   */
  @Test
  void a_transaction_that_wrote_nothing_and_waits_between_statements_is_not_listed() throws Exception {
    try (java.sql.Connection report = database().connect()) {
      report.setTransactionIsolation(java.sql.Connection.TRANSACTION_REPEATABLE_READ);
      report.setAutoCommit(false);
      report.createStatement().execute("SELECT COUNT(*) FROM outbox_message");
      long name = nameOf(report);
      assertThat(probe()).as("the probe can tell").isNotNull().doesNotContain(name);
      report.rollback();
    }
  }

  /** Once it has written, a transaction is listed while it waits between statements. */
  @Test
  void a_transaction_that_wrote_is_listed_while_it_waits() throws Exception {
    try (java.sql.Connection writer = database().connect()) {
      writer.setAutoCommit(false);
      writer.createStatement().execute("CREATE TEMPORARY TABLE probe_written (n int) ON COMMIT DROP");
      writer.createStatement().execute("INSERT INTO probe_written VALUES (1)");
      assertThat(probe()).contains(nameOf(writer));
      writer.rollback();
    }
  }

  /**
   * A statement that is running is listed although its transaction has written nothing yet: a
   * publish draws its id before it writes its row, in the same statement.
   */
  @Test
  void a_transaction_whose_statement_is_running_is_listed_before_it_wrote() throws Exception {
    try (java.sql.Connection publisher = database().connect()) {
      publisher.setAutoCommit(false);
      publisher.createStatement().execute("SELECT 1");
      long name = nameOf(publisher);
      java.util.concurrent.CompletableFuture<Void> sleeping = java.util.concurrent.CompletableFuture.runAsync(() -> {
        try {
          publisher.createStatement().execute("SELECT pg_sleep(3)");
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      });
      try {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2)).until(() -> contains(probe(), name));
      } finally {
        sleeping.get(10, java.util.concurrent.TimeUnit.SECONDS);
        publisher.rollback();
      }
    }
  }

  /**
   * Revived dead messages draw their new ids in a statement of their own, before the statement that
   * writes them: the transaction is listed from the moment it holds the ids.
   */
  @Test
  void a_transaction_that_drew_new_ids_for_revived_messages_is_listed_while_it_waits() throws Exception {
    try (java.sql.Connection admin = database().connect()) {
      admin.setAutoCommit(false);
      Dialect.POSTGRESQL.sql().nextMessageIds(admin, 3);
      assertThat(probe()).contains(nameOf(admin));
      admin.rollback();
    }
  }

  /**
   * The read turns bitmap scans off for its own plan only: the rest of the worker's transaction (a
   * relay that writes in it) plans with the setting the session had, whichever it was.
   */
  @Test
  void the_read_leaves_the_sessions_bitmap_scan_setting_as_it_found_it() throws Exception {
    for (String setting : new String[] {"on", "off"}) {
      try (java.sql.Connection connection = database().connect()) {
        connection.createStatement().execute("SET enable_bitmapscan = " + setting);
        connection.setAutoCommit(false);
        BatchStatements.ClaimedRead claimed = statements.claimAndRead(connection, "orders", 1, "test-node",
            "test-instance", LocalDateTime.now(ZoneOffset.UTC), 0,
            new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, false));
        assertThat(claimed.claim().claimed()).isTrue();
        assertThat(bitmapScan(connection)).as("after the claim and read").isEqualTo(setting);
        statements.read(connection, "orders", 1, new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, false),
            LocalDateTime.now(ZoneOffset.UTC));
        assertThat(bitmapScan(connection)).as("after a read").isEqualTo(setting);
        connection.rollback();
      }
    }
  }

  private static String bitmapScan(java.sql.Connection connection) throws java.sql.SQLException {
    try (java.sql.ResultSet rows = connection.createStatement().executeQuery("SHOW enable_bitmapscan")) {
      rows.next();
      return rows.getString(1);
    }
  }

  /** How the probe names the transaction running on {@code connection} (its session and start). */
  private static long nameOf(java.sql.Connection connection) throws java.sql.SQLException {
    try (java.sql.ResultSet rows = connection.createStatement().executeQuery("SELECT hashtextextended("
        + "pg_backend_pid()::text || '@' || CAST(EXTRACT(EPOCH FROM now()) * 1000000 AS bigint)::text, 0)")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static boolean contains(long[] names, long name) {
    return names != null && java.util.Arrays.stream(names).anyMatch(n -> n == name);
  }

  /** A prepared (two-phase) transaction hides its session's state from the probe: it cannot tell. */
  @Test
  void while_a_transaction_is_prepared_the_probe_cannot_tell() throws Exception {
    try (dev.outboxer.testing.PreparedBranch prepared = dev.outboxer.testing.PreparedBranch.holdingPartition(
        database(), "orders", 0)) {
      assertThat(probe()).isNull();
    }
    assertThat(probe()).as("once it is finished").isNotNull();
  }

  private long[] probe() throws Exception {
    return inTransaction(() -> claimAndRead(1)).claim().runningTransactions();
  }
}
