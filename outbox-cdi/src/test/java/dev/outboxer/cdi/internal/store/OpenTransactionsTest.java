package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.OpenTransaction;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's oldest open transaction on another session: a session left in a transaction is
 * named; an idle session is not, also while the server runs a transaction of its own for it (it
 * delivers notifications to a {@code LISTEN}ing session, such as Outboxer's cross-node wake-up, in a
 * transaction whose start pg_stat_activity shows as the session's last statement's, minutes ago).
 */
class OpenTransactionsTest {

  private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

  @Test
  void a_session_left_in_a_transaction_is_named() throws Exception {
    try (Connection report = DATABASE.connect(); Connection observer = DATABASE.connect()) {
      report.setAutoCommit(false);
      report.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      int pid = pid(report);

      Optional<OpenTransaction> oldest = OpenTransactions.oldest(observer);

      assertThat(oldest).hasValueSatisfying(transaction -> {
        assertThat(transaction.pid()).isEqualTo(pid);
        assertThat(transaction.state()).isEqualTo("idle in transaction");
      });
      report.rollback();
    }
  }

  @Test
  void an_idle_listening_session_that_the_server_is_delivering_notifications_to_is_not_an_open_transaction()
      throws Exception {
    try (Connection listener = DATABASE.connect(); Connection notifier = DATABASE.connect();
        Connection observer = DATABASE.connect()) {
      int listenerPid = pid(listener);
      try (Statement statement = listener.createStatement()) {
        statement.execute("LISTEN open_transactions_test");
      }
      // The listener's client never reads: once the socket's buffers are full, the server blocks while it delivers
      // the notifications, inside the transaction in which it reads them from the queue.
      try (PreparedStatement notify = notifier.prepareStatement("SELECT pg_notify('open_transactions_test',"
          + " repeat('x', 7000))")) {
        for (int i = 0; i < 3000; i++) {
          notify.executeQuery().close();
        }
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> serverTransactionOf(observer, listenerPid));

      assertThat(OpenTransactions.oldest(observer)).as("the idle listener, blocked delivering notifications")
          .isEmpty();
    }
  }

  /** Whether pg_stat_activity shows the idle session inside a transaction (the server's, delivering notifications). */
  private static boolean serverTransactionOf(Connection observer, int pid) throws Exception {
    observer.setAutoCommit(true);
    try (PreparedStatement statement = observer.prepareStatement("SELECT state = 'idle' AND xact_start IS NOT NULL"
        + " FROM pg_stat_activity WHERE pid = ?")) {
      statement.setInt(1, pid);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() && rows.getBoolean(1);
      }
    }
  }

  private static int pid(Connection connection) throws Exception {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
      rows.next();
      return rows.getInt(1);
    }
  }
}
