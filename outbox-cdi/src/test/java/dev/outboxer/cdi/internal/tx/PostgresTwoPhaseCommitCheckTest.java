package dev.outboxer.cdi.internal.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A relay that enlists in the worker's JTA transaction makes it a two-phase one: Outboxer checks at
 * start-up that the outbox's PostgreSQL data source is an XA one and that the server allows prepared
 * transactions, and fails the deployment naming the fix otherwise.
 */
class PostgresTwoPhaseCommitCheckTest {

  private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

  /**
   * Enlists a second resource of its own in the worker's transaction, as an XA JMS session does, so
   * that the commit really goes through PREPARE TRANSACTION on the database; confirms every record.
   */
  @ApplicationScoped
  @Named("enlisting")
  public static class EnlistingRelay implements Relay {
    final AtomicInteger prepared = new AtomicInteger();
    final AtomicInteger confirmed = new AtomicInteger();

    @Override
    public void relay(RelayBatch batch) throws Exception {
      com.arjuna.ats.jta.TransactionManager.transactionManager().getTransaction().enlistResource(new SecondBranch());
      for (OutboxRecord record : batch.records()) {
        if (!batch.heldBack(record)) {
          batch.confirm(record);
          confirmed.incrementAndGet();
        }
      }
    }

    @Override
    public boolean enlistsInWorkerTransaction() {
      return true;
    }

    int confirmed() {
      return confirmed.get();
    }

    int prepared() {
      return prepared.get();
    }

    /** A resource that votes yes and does nothing: what matters is the database's branch. */
    final class SecondBranch implements XAResource {
      @Override public void commit(Xid xid, boolean onePhase) {}
      @Override public void end(Xid xid, int flags) {}
      @Override public void forget(Xid xid) {}
      @Override public int getTransactionTimeout() { return 0; }
      @Override public boolean isSameRM(XAResource other) { return false; }
      @Override public int prepare(Xid xid) throws XAException {
        prepared.incrementAndGet();
        return XA_OK;
      }
      @Override public Xid[] recover(int flag) { return new Xid[0]; }
      @Override public void rollback(Xid xid) {}
      @Override public boolean setTransactionTimeout(int seconds) { return false; }
      @Override public void start(Xid xid, int flags) {}
    }
  }

  private static OutboxTestContainer.Builder onNonXaPool(String relay, Class<?> relayClass) {
    return onNonXaPoolThroughTheEntityManager(relay, relayClass).viaDataSource();
  }

  private static OutboxTestContainer.Builder onNonXaPoolThroughTheEntityManager(String relay, Class<?> relayClass) {
    DATABASE.assumeAvailable();
    DATABASE.resetSchema();
    // The same database through the driver instead of PGXADataSource: the pool's connections take part in a JTA
    // transaction only as a one-phase resource.
    return OutboxTestContainer.builder(JdbcTarget.of(DATABASE).withXaDataSourceClass("org.postgresql.Driver"))
        .config("outbox.orders.relay", relay)
        .beans(relayClass);
  }

  @Test
  void an_enlisting_relay_next_to_a_non_xa_data_source_fails_the_deployment_naming_the_data_source_and_the_fix() {
    try (LogCapture quiet = LogCapture.start()) {
      assertThatThrownBy(() -> onNonXaPool("enlisting", EnlistingRelay.class).start().close())
          .hasStackTraceContaining(OutboxConfigurationException.class.getName())
          .hasStackTraceContaining("outbox 'orders' (outbox.orders.relay=enlisting) relays through a relay that"
              + " enlists in the worker's JTA transaction")
          .hasStackTraceContaining("the @OutboxPersistence data source is not an XA data source (its connections"
              + " come from org.postgresql.Driver)")
          .hasStackTraceContaining("<dataSource type=\"javax.sql.XADataSource\">")
          .hasStackTraceContaining("connectionProviderClassName=org.postgresql.xa.PGXADataSource");
    }
  }

  /** Without a data source of its own, Outboxer finds the persistence unit's JTA data source. */
  @Test
  void an_enlisting_relay_next_to_a_non_xa_persistence_unit_data_source_fails_the_deployment() {
    try (LogCapture quiet = LogCapture.start()) {
      assertThatThrownBy(() -> onNonXaPoolThroughTheEntityManager("enlisting", EnlistingRelay.class).start().close())
          .hasStackTraceContaining("the JTA data source of the @OutboxPersistence EntityManager's persistence unit is"
              + " not an XA data source (its connections come from org.postgresql.Driver)");
    }
  }

  @Test
  void a_relay_that_does_not_enlist_starts_next_to_a_non_xa_data_source() throws Exception {
    try (OutboxTestContainer container = onNonXaPool("recording", RecordingRelay.class).start()) {
      container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Keyed("k", 1)));
      container.select(RecordingRelay.class).awaitConfirmations(1);
    }
  }

  /** The real value path: the server's own setting, read as the check reads it, and a start that relays in 2PC. */
  @Test
  void an_enlisting_relay_on_an_xa_data_source_with_prepared_transactions_starts_and_commits_in_two_phases()
      throws Exception {
    DATABASE.assumeAvailable();
    try (Connection connection = DATABASE.connect(); Statement statement = connection.createStatement();
        ResultSet setting = statement.executeQuery(
            "SELECT setting::int FROM pg_settings WHERE name = 'max_prepared_transactions'")) {
      setting.next();
      assertThat(TwoPhaseCommitCheck.maxPreparedTransactions(connection)).isEqualTo(setting.getInt(1))
          .as("the test server allows prepared transactions (CI starts it with max_prepared_transactions=20)")
          .isPositive();
    }
    try (OutboxTestContainer container = OutboxTestContainer.builder(DATABASE)
        .config("outbox.orders.relay", "enlisting")
        .beans(EnlistingRelay.class)
        .start()) {
      container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Keyed("k", 1)));
      EnlistingRelay relay = container.select(EnlistingRelay.class);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> container.tables().countMessages() == 0);
      assertThat(relay.confirmed()).isEqualTo(1);
      assertThat(relay.prepared()).as("the worker's commit prepared the second branch").isPositive();
    }
  }

  /**
   * PostgreSQL's default, 0, cannot be set on the shared test server: the check's own query runs on a
   * real connection whose answer to it is 0, and the check refuses that naming the setting and the fix.
   */
  @Test
  void max_prepared_transactions_0_is_refused_naming_the_setting_and_the_fix() throws Exception {
    DATABASE.assumeAvailable();
    try (Connection real = DATABASE.connect()) {
      int answer = TwoPhaseCommitCheck.maxPreparedTransactions(reportingZero(real));
      assertThat(answer).isZero();
      assertThatThrownBy(() -> TwoPhaseCommitCheck.requirePreparedTransactions(answer, "outbox 'orders' relays"
              + " through a relay that enlists"))
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("max_prepared_transactions")
          .hasMessageContaining("PostgreSQL's max_prepared_transactions is 0 on the outbox's database")
          .hasMessageContaining("ALTER SYSTEM SET max_prepared_transactions = 20; then restart PostgreSQL");
    }
  }

  /** The connection, with SHOW max_prepared_transactions answered by the server as a server set to 0 would. */
  private static Connection reportingZero(Connection real) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          Object result = method.invoke(real, args);
          if (!method.getName().equals("createStatement") || !(result instanceof Statement statement)) {
            return result;
          }
          return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {Statement.class},
              (statementProxy, statementMethod, statementArgs) -> {
                if (statementMethod.getName().equals("executeQuery")
                    && "SHOW max_prepared_transactions".equals(statementArgs[0])) {
                  return statement.executeQuery("SELECT '0' AS max_prepared_transactions");
                }
                return statementMethod.invoke(statement, statementArgs);
              });
        });
  }
}
