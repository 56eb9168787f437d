package dev.outboxer.chaos;

import com.arjuna.ats.arjuna.recovery.RecoveryManager;
import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import dev.outboxer.testing.JdbcTarget;
import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;
import org.jboss.narayana.jta.jms.JmsXAResourceRecoveryHelper;

/**
 * Narayana's recovery manager for a {@code jms} worker: a worker killed between the two phases of a
 * commit leaves prepared branches in the database and Artemis that hold locks (a partition row!) until
 * someone finishes them. The restarted worker has the same node name and transaction log, so its
 * recovery manager commits what was decided and rolls back the rest, as an application server
 * would. Scans every few seconds.
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

  static RecoveryManager start(JdbcTarget database, String broker) {
    RecoveryManager manager = RecoveryManager.manager(RecoveryManager.INDIRECT_MANAGEMENT);
    XARecoveryModule module = XARecoveryModule.getRegisteredXARecoveryModule();
    module.addXAResourceRecoveryHelper(new DatabaseHelper(database));
    module.addXAResourceRecoveryHelper(
        new JmsXAResourceRecoveryHelper(new ActiveMQXAConnectionFactory("tcp://" + broker)));
    manager.startRecoveryManagerThread();
    return manager;
  }

  /** Hands the database's XA resource to the recovery scans, on a connection of its own. */
  private static final class DatabaseHelper implements XAResourceRecoveryHelper {
    private final JdbcTarget database;
    private XAConnection connection;

    DatabaseHelper(JdbcTarget database) {
      this.database = database;
    }

    @Override
    public boolean initialise(String properties) {
      return true;
    }

    @Override
    public synchronized XAResource[] getXAResources() {
      try {
        if (connection != null) {
          connection.close();
        }
        // The XA data source the test kit's pool uses (PGXADataSource, MariaDbDataSource): same setters.
        Object source = Class.forName(database.xaDataSourceClass()).getConstructor().newInstance();
        source.getClass().getMethod("setUrl", String.class).invoke(source, database.url());
        source.getClass().getMethod("setUser", String.class).invoke(source, database.user());
        source.getClass().getMethod("setPassword", String.class).invoke(source, database.password());
        connection = ((XADataSource) source).getXAConnection();
        return new XAResource[] {connection.getXAResource()};
      } catch (SQLException | ReflectiveOperationException e) {
        LOG.log(Level.WARNING, "chaos: the database is not reachable for XA recovery: " + e);
        connection = null;
        return new XAResource[0];
      }
    }
  }
}
