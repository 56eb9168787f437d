package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;

import com.arjuna.ats.arjuna.common.RecoveryEnvironmentBean;
import com.arjuna.ats.arjuna.common.recoveryPropertyManager;
import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import dev.outboxer.jms.narayana.BrokerFirstRecovery;
import dev.outboxer.jms.narayana.BrokerFirstTransactionHelper;
import dev.outboxer.jms.narayana.ForwardingXAResource;
import dev.outboxer.testing.TestDatabase;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.XAConnection;
import jakarta.jms.XAConnectionFactory;
import jakarta.jms.XAJMSContext;
import jakarta.jms.XASession;
import jakarta.transaction.TransactionManager;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.ConnectionEventListener;
import javax.sql.StatementEventListener;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.xa.PGXADataSource;

/**
 * Narayana's recovery, wired with {@link BrokerFirstRecovery}, keeps the order {@link
 * BrokerFirstTransactionHelper} gives the worker's own commit: a batch's database branch (which, in
 * Outboxer, holds its partition's row lock and so keeps the group's next messages back) is never
 * committed before the broker's branch of the same transaction, and nothing is left prepared.
 *
 * <p>A transaction sends 3 messages to a real embedded Artemis and inserts a row in the local
 * PostgreSQL, both enlisted as the Java SE wiring enlists them (the database first, as the worker's
 * claim; the broker's session through {@link BrokerFirstTransactionHelper}). Both branches are
 * prepared and the decision to commit is logged; then the node "dies": before either commit, or
 * after the broker's commit reached the broker (a commit that fails with {@code XAER_RMFAIL} leaves
 * the transaction manager's log as a kill at that point does). The test then runs Narayana's
 * recovery scans itself, with the broker reachable or cut off, and notes at every commit of the
 * database's branch how many messages the broker had.
 *
 * <p>With Narayana's plain helpers (the wiring before {@link BrokerFirstRecovery}) recovery
 * committed the database's branch first: while the broker had 0 of the 3 messages, both when the
 * broker was reachable and while it was cut off.
 */
class JmsRelayRecoveryOrderXaTest {

  private static final String QUEUE = "outbox.recovered";
  private static final int MESSAGES = 3;

  private static RecoveryManager recoveryManager;

  /** Branches of the transaction the test leaves to recovery. */
  private final List<Xid> crashed = new CopyOnWriteArrayList<>();
  /** Whether the node dies before the broker's commit too (else between the broker's and the database's). */
  private boolean brokerCommitDies = true;
  /** For each commit of the test's database branch that reached PostgreSQL: the messages the broker had then. */
  private final List<Long> brokerMessagesAtDatabaseCommit = new CopyOnWriteArrayList<>();

  private EmbeddedArtemis broker;
  private PGXADataSource database;
  /** The database as recovery reaches it: its sessions carry {@value #RECOVERY_APPLICATION}. */
  private PGXADataSource recoveryDatabase;
  private static final String RECOVERY_APPLICATION = "outboxer-recovery-order-test";

  @BeforeAll
  static void recoveryManager() throws SQLException {
    try (Connection connection = TestDatabase.POSTGRESQL.connect(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS recovery_order (id VARCHAR(64) PRIMARY KEY)");
    }
    RecoveryEnvironmentBean recovery = recoveryPropertyManager.getRecoveryEnvironmentBean();
    // Tests share the machine: no fixed listener port. One second between a scan's two passes.
    recovery.setRecoveryListener(false);
    recovery.setRecoveryBackoffPeriod(1);
    // The test runs every scan itself: the manager's own thread scans once at its start and then
    // not for an hour.
    recovery.setPeriodicRecoveryPeriod(3600);
    recoveryManager = RecoveryManager.manager(RecoveryManager.INDIRECT_MANAGEMENT);
    // That first scan must be over before a test leaves its transaction: a test's scan() that comes
    // while it runs only waits for it, and a transaction logged after its first pass is not recovered
    // in its second (the first test failed so on a fast machine: nothing committed).
    recoveryManager.scan();
  }

  @AfterAll
  static void stopRecovery() {
    if (recoveryManager != null) {
      recoveryManager.terminate();
    }
  }

  @AfterEach
  void rollBackLeftovers() throws Exception {
    // A failed assertion may leave a branch prepared: roll back this test's own, never another's.
    if (database == null) {
      return;
    }
    javax.sql.XAConnection connection = database.getXAConnection();
    try {
      rollBack(connection.getXAResource());
    } finally {
      connection.close();
    }
    if (broker != null) {
      ActiveMQXAConnectionFactory factory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
      try (XAConnection jms = factory.createXAConnection()) {
        rollBack(jms.createXASession().getXAResource());
      } finally {
        factory.close();
        broker.close();
      }
    }
  }

  @Test
  void recovery_commits_the_databases_branch_only_after_the_brokers_while_the_broker_is_unreachable_at_first()
      throws Exception {
    start();
    BrokerFactory brokerFactory = new BrokerFactory();
    try (BrokerFirstRecovery recovery = BrokerFirstRecovery.register(new ObservedDatabase(), brokerFactory)) {
      String id = leaveBothBranchesPrepared();

      brokerFactory.reachable = false;
      recoveryManager.scan();
      recoveryManager.scan();

      assertThat(brokerMessagesAtDatabaseCommit)
          .as("commits of the database's branch while the broker could not be reached").isEmpty();
      assertThat(preparedInDatabase()).as("the database's branch, still prepared").isTrue();
      assertThat(preparedInBroker()).as("the broker's branch, still prepared").isTrue();
      assertThat(rowCommitted(id)).isFalse();

      brokerFactory.reachable = true;
      recoveryManager.scan();

      assertRecoveredBrokerFirst(id);
    }
  }

  @Test
  void recovery_commits_the_brokers_branch_before_the_databases_when_both_are_reachable() throws Exception {
    start();
    try (BrokerFirstRecovery recovery = BrokerFirstRecovery.register(new ObservedDatabase(), new BrokerFactory())) {
      String id = leaveBothBranchesPrepared();

      recoveryManager.scan();

      assertRecoveredBrokerFirst(id);
    }
  }

  @Test
  void recovery_commits_the_databases_branch_whose_brokers_branch_committed_before_the_node_died() throws Exception {
    start();
    try (BrokerFirstRecovery recovery = BrokerFirstRecovery.register(new ObservedDatabase(), new BrokerFactory())) {
      brokerCommitDies = false;
      String id = leaveBothBranchesPrepared();

      recoveryManager.scan();

      assertRecoveredBrokerFirst(id);
    }
  }

  @Test
  void recovery_replaces_its_database_connection_once_the_database_ended_it() throws Exception {
    start();
    BrokerFactory brokerFactory = new BrokerFactory();
    try (BrokerFirstRecovery recovery = BrokerFirstRecovery.register(new ObservedDatabase(), brokerFactory)) {
      String id = leaveBothBranchesPrepared();
      brokerFactory.reachable = false;
      recoveryManager.scan();

      assertThat(endRecoverySessions()).as("recovery's database sessions, ended").isPositive();
      brokerFactory.reachable = true;
      recoveryManager.scan();
      recoveryManager.scan();

      assertRecoveredBrokerFirst(id);
    }
  }

  private void start() throws Exception {
    broker = EmbeddedArtemis.start();
    broker.createQueue(QUEUE);
    database = dataSource();
    recoveryDatabase = dataSource();
    recoveryDatabase.setApplicationName(RECOVERY_APPLICATION);
  }

  private static PGXADataSource dataSource() {
    PGXADataSource dataSource = new PGXADataSource();
    dataSource.setURL(TestDatabase.POSTGRESQL.url());
    dataSource.setUser(TestDatabase.POSTGRESQL.user());
    dataSource.setPassword(TestDatabase.POSTGRESQL.password());
    return dataSource;
  }

  /** Ends the database sessions recovery holds (what a failover or an operator does); how many. */
  private static int endRecoverySessions() throws SQLException {
    int ended = 0;
    try (Connection connection = TestDatabase.POSTGRESQL.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT pg_terminate_backend(pid)"
            + " FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()")) {
      statement.setString(1, RECOVERY_APPLICATION);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          ended += rows.getBoolean(1) ? 1 : 0;
        }
      }
    }
    return ended;
  }

  private void assertRecoveredBrokerFirst(String id) throws Exception {
    assertThat(brokerMessagesAtDatabaseCommit)
        .as("the messages the broker had when the database's branch committed (once)").containsExactly((long) MESSAGES);
    assertThat(preparedInDatabase()).as("the database's branch, still prepared").isFalse();
    assertThat(preparedInBroker()).as("the broker's branch, still prepared").isFalse();
    assertThat(rowCommitted(id)).isTrue();
    List<String> received = new ArrayList<>();
    for (Message message : broker.receive(QUEUE, MESSAGES + 1, 500)) {
      received.add(message.getBody(String.class));
    }
    assertThat(received).containsExactly(id + "-1", id + "-2", id + "-3");
  }

  /**
   * One transaction through the Java SE wiring (the database enlisted first, as the worker's claim
   * is; the broker's session through {@link BrokerFirstTransactionHelper}), prepared on both sides
   * with the decision to commit logged, and neither commit done.
   */
  private String leaveBothBranchesPrepared() throws Exception {
    String id = UUID.randomUUID().toString();
    TransactionManager transactionManager = com.arjuna.ats.jta.TransactionManager.transactionManager();
    ActiveMQXAConnectionFactory factory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
    javax.sql.XAConnection sql = database.getXAConnection();
    try (XAConnection jms = factory.createXAConnection()) {
      transactionManager.begin();
      transactionManager.getTransaction().enlistResource(new DiesBeforeCommit(sql.getXAResource()));
      try (PreparedStatement insert = sql.getConnection().prepareStatement("INSERT INTO recovery_order (id) VALUES (?)")) {
        insert.setString(1, id);
        insert.executeUpdate();
      }
      XASession session = jms.createXASession();
      BrokerFirstTransactionHelper helper = new BrokerFirstTransactionHelper(transactionManager);
      XAResource brokerResource =
          brokerCommitDies ? new DiesBeforeCommit(session.getXAResource()) : new DiesAfterCommit(session.getXAResource());
      helper.registerXAResource(brokerResource);
      MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
      for (int i = 1; i <= MESSAGES; i++) {
        producer.send(session.createTextMessage(id + "-" + i));
      }
      helper.deregisterXAResource(brokerResource);
      try {
        transactionManager.commit();
      } catch (Exception e) {
        // The commits failed on purpose; what is left is recovery's.
      }
    } finally {
      sql.close();
      factory.close();
    }
    assertThat(preparedInDatabase()).as("the database's branch, prepared and left").isTrue();
    assertThat(preparedInBroker()).as("the broker's branch, prepared and left").isEqualTo(brokerCommitDies);
    assertThat(broker.messageCount(QUEUE)).isEqualTo(brokerCommitDies ? 0 : MESSAGES);
    return id;
  }

  private boolean preparedInDatabase() throws Exception {
    javax.sql.XAConnection connection = database.getXAConnection();
    try {
      return preparedIn(connection.getXAResource());
    } finally {
      connection.close();
    }
  }

  private boolean preparedInBroker() throws Exception {
    ActiveMQXAConnectionFactory factory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
    try (XAConnection jms = factory.createXAConnection()) {
      return preparedIn(jms.createXASession().getXAResource());
    } finally {
      factory.close();
    }
  }

  private boolean preparedIn(XAResource resource) throws XAException {
    return Arrays.stream(resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)).anyMatch(this::ours);
  }

  private void rollBack(XAResource resource) throws XAException {
    for (Xid xid : resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)) {
      if (ours(xid)) {
        resource.rollback(xid);
      }
    }
  }

  /** A branch of the transaction this test left prepared. */
  private boolean ours(Xid xid) {
    return crashed.stream().anyMatch(left -> left.getFormatId() == xid.getFormatId()
        && Arrays.equals(left.getGlobalTransactionId(), xid.getGlobalTransactionId()));
  }

  private static boolean rowCommitted(String id) throws SQLException {
    try (Connection connection = TestDatabase.POSTGRESQL.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM recovery_order WHERE id = ?")) {
      statement.setString(1, id);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next();
      }
    }
  }

  /**
   * A branch whose commit reaches the resource manager, and whose node dies before it hears back:
   * the transaction manager's log still names the branch, as after a kill between the two commits.
   */
  private final class DiesAfterCommit extends ForwardingXAResource {
    DiesAfterCommit(XAResource delegate) {
      super(delegate);
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
      crashed.add(xid);
      super.commit(xid, onePhase);
      throw new XAException(XAException.XAER_RMFAIL);
    }
  }

  /** A branch whose node dies after it is prepared and before it is committed. */
  private final class DiesBeforeCommit extends ForwardingXAResource {
    DiesBeforeCommit(XAResource delegate) {
      super(delegate);
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
      crashed.add(xid);
      throw new XAException(XAException.XAER_RMFAIL);
    }
  }

  /** The broker's factory for recovery, which can be cut off from the broker. */
  private static final class BrokerFactory implements XAConnectionFactory {
    private final ActiveMQXAConnectionFactory factory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
    volatile boolean reachable = true;

    @Override
    public XAConnection createXAConnection() throws JMSException {
      check();
      return factory.createXAConnection();
    }

    @Override
    public XAConnection createXAConnection(String user, String password) throws JMSException {
      check();
      return factory.createXAConnection(user, password);
    }

    @Override
    public XAJMSContext createXAContext() {
      return factory.createXAContext();
    }

    @Override
    public XAJMSContext createXAContext(String user, String password) {
      return factory.createXAContext(user, password);
    }

    private void check() throws JMSException {
      if (!reachable) {
        throw new JMSException("the broker cannot be reached (the test cut it off)");
      }
    }
  }

  /**
   * The database for recovery: PostgreSQL, and for every commit of this test's branch that reaches
   * it, the number of messages the broker had at that moment.
   */
  private final class ObservedDatabase implements XADataSource {
    @Override
    public javax.sql.XAConnection getXAConnection() throws SQLException {
      return new ObservedConnection(recoveryDatabase.getXAConnection());
    }

    @Override
    public javax.sql.XAConnection getXAConnection(String user, String password) throws SQLException {
      return new ObservedConnection(recoveryDatabase.getXAConnection(user, password));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return database.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      database.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      database.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return database.getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return database.getParentLogger();
    }
  }

  private final class ObservedConnection implements javax.sql.XAConnection {
    private final javax.sql.XAConnection delegate;

    ObservedConnection(javax.sql.XAConnection delegate) {
      this.delegate = delegate;
    }

    @Override
    public XAResource getXAResource() throws SQLException {
      return new ForwardingXAResource(delegate.getXAResource()) {
        @Override
        public void commit(Xid xid, boolean onePhase) throws XAException {
          if (ours(xid)) {
            brokerMessagesAtDatabaseCommit.add(broker.messageCount(QUEUE));
          }
          super.commit(xid, onePhase);
        }
      };
    }

    @Override
    public Connection getConnection() throws SQLException {
      return delegate.getConnection();
    }

    @Override
    public void close() throws SQLException {
      delegate.close();
    }

    @Override
    public void addConnectionEventListener(ConnectionEventListener listener) {
      delegate.addConnectionEventListener(listener);
    }

    @Override
    public void removeConnectionEventListener(ConnectionEventListener listener) {
      delegate.removeConnectionEventListener(listener);
    }

    @Override
    public void addStatementEventListener(StatementEventListener listener) {
      delegate.addStatementEventListener(listener);
    }

    @Override
    public void removeStatementEventListener(StatementEventListener listener) {
      delegate.removeStatementEventListener(listener);
    }
  }
}
