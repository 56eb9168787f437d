package dev.outboxer.chaos;

import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import dev.outboxer.jms.narayana.BrokerFirstRecovery;
import dev.outboxer.testing.JdbcTarget;
import jakarta.jms.JMSException;
import jakarta.jms.XAConnection;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.XADataSource;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;

/**
 * Narayana's recovery manager for a {@code jms} worker: a worker killed between the two phases of a
 * commit leaves prepared branches in the database and Artemis that hold locks (a partition row!) until
 * someone finishes them. The restarted worker has the same node name and transaction log, so its
 * recovery manager commits what was decided and rolls back the rest, as an application server
 * would, the broker's branch of a transaction before its database's ({@link BrokerFirstRecovery}).
 * Scans every few seconds.
 */
final class XaRecovery {

  private static final Logger LOG = Logger.getLogger(XaRecovery.class.getName());

  private XaRecovery() {}

  /** Call before the first transaction: Narayana reads these settings once. */
  static void configure() {
    System.setProperty("RecoveryEnvironmentBean.periodicRecoveryPeriod", "5");
    System.setProperty("RecoveryEnvironmentBean.recoveryBackoffPeriod", "1");
    // Several workers share the machine: no fixed listener port.
    System.setProperty("RecoveryEnvironmentBean.recoveryListener", "false");
    // Without recovery nodes Narayana never rolls back an orphan: a branch a killed worker prepared
    // before it wrote its decision stays prepared, holding its partition's lock, for ever. This
    // node recovers the transactions it started (its own identifier, set by the orchestrator).
    String node = System.getProperty("CoreEnvironmentBean.nodeIdentifier");
    if (node == null || node.isBlank()) {
      throw new IllegalStateException("A jms worker needs -DCoreEnvironmentBean.nodeIdentifier for its XA recovery");
    }
    System.setProperty("JTAEnvironmentBean.xaRecoveryNodes", node);
    // Not JTAEnvironmentBean.xaAssumeRecoveryComplete: right after a restart the broker's recovery
    // helper may not list its prepared branches yet; "assume complete" then dropped the decision for
    // the broker's branch, recovery committed the database's alone, and a later scan rolled the
    // broker's back as an orphan: 8 messages lost in a long run. A logged branch that no resource
    // knows any more is only retried (and logged) until an operator removes it.
  }

  /**
   * Starts the recovery manager, before the workers: it finishes the branches a previous
   * incarnation left as early as it can, and it loads Artemis' client on this thread. A worker's
   * first batch would otherwise load it under the relay timeout, and on a loaded machine (load 62
   * on 2 cores) the timeout's interrupt hit a static initialiser (commons-logging's, under Artemis'
   * {@code BeanSupport}), which broke that class for the JVM's life: every later batch of the worker
   * failed with {@code NoClassDefFoundError} and its messages died.
   */
  static RecoveryManager start(JdbcTarget database, String broker) {
    RecoveryManager manager = RecoveryManager.manager(RecoveryManager.INDIRECT_MANAGEMENT);
    ActiveMQXAConnectionFactory factory = new ActiveMQXAConnectionFactory("tcp://" + broker);
    try (XAConnection connection = factory.createXAConnection()) {
      connection.createXASession().getXAResource();
    } catch (JMSException | RuntimeException e) {
      LOG.log(Level.WARNING, "chaos: the broker cannot be reached yet; recovery retries it at every pass: " + e);
    }
    // The README's Java SE wiring: recovery commits a batch's broker branch before its database
    // branch (which holds the partition), as BrokerFirstTransactionHelper makes the worker's commit do.
    BrokerFirstRecovery.register(xaDataSource(database), factory);
    manager.startRecoveryManagerThread();
    return manager;
  }

  /** The XA data source the test kit's pool uses (RecoverablePGXADataSource, MariaDbDataSource): same setters. */
  private static XADataSource xaDataSource(JdbcTarget database) {
    try {
      Object source = Class.forName(database.xaDataSourceClass()).getConstructor().newInstance();
      source.getClass().getMethod("setUrl", String.class).invoke(source, database.url());
      source.getClass().getMethod("setUser", String.class).invoke(source, database.user());
      source.getClass().getMethod("setPassword", String.class).invoke(source, database.password());
      return (XADataSource) source;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("chaos: cannot create the XA data source " + database.xaDataSourceClass(), e);
    }
  }
}
