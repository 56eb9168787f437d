package dev.outboxer.jms.narayana;

import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import jakarta.jms.XAConnectionFactory;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;
import org.jboss.narayana.jta.jms.JmsXAResourceRecoveryHelper;

/**
 * Narayana's XA recovery for the JMS relay in Java SE: the recovery helpers for the database and
 * the broker.
 */
public final class BrokerFirstRecovery implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(BrokerFirstRecovery.class.getName());

  private final XARecoveryModule module;
  private final XAResourceRecoveryHelper brokerHelper;
  private final DatabaseHelper databaseHelper;

  private BrokerFirstRecovery(XARecoveryModule module, XADataSource database, XAConnectionFactory broker) {
    this.module = module;
    this.brokerHelper = new JmsXAResourceRecoveryHelper(broker);
    this.databaseHelper = new DatabaseHelper(database);
  }

  /** Registers the helpers with Narayana's XA recovery module. */
  public static BrokerFirstRecovery register(XADataSource database, XAConnectionFactory broker) {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(broker, "broker");
    XARecoveryModule module = XARecoveryModule.getRegisteredXARecoveryModule();
    BrokerFirstRecovery recovery = new BrokerFirstRecovery(module, database, broker);
    module.addXAResourceRecoveryHelper(recovery.databaseHelper);
    module.addXAResourceRecoveryHelper(recovery.brokerHelper);
    return recovery;
  }

  @Override
  public void close() {
    module.removeXAResourceRecoveryHelper(brokerHelper);
    module.removeXAResourceRecoveryHelper(databaseHelper);
    databaseHelper.close();
  }

  /** The database's XA resource for the recovery scans, on a connection of its own. */
  private static final class DatabaseHelper implements XAResourceRecoveryHelper {
    private final XADataSource database;
    private XAConnection connection;

    DatabaseHelper(XADataSource database) {
      this.database = database;
    }

    @Override
    public boolean initialise(String properties) {
      return true;
    }

    @Override
    public synchronized XAResource[] getXAResources() {
      close();
      try {
        connection = database.getXAConnection();
        return new XAResource[] {connection.getXAResource()};
      } catch (SQLException e) {
        LOG.log(Level.WARNING, "Outboxer: the database is not reachable for XA recovery: " + e);
        return new XAResource[0];
      }
    }

    synchronized void close() {
      if (connection != null) {
        try {
          connection.close();
        } catch (SQLException e) {
          LOG.log(Level.DEBUG, "Outboxer: closing the database's recovery connection failed", e);
        }
        connection = null;
      }
    }
  }
}
