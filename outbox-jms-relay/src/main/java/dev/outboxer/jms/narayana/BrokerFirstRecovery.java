package dev.outboxer.jms.narayana;

import com.arjuna.ats.internal.jta.recovery.arjunacore.XARecoveryModule;
import com.arjuna.ats.jta.recovery.XAResourceRecoveryHelper;
import jakarta.jms.JMSException;
import jakarta.jms.XAConnection;
import jakarta.jms.XAConnectionFactory;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Objects;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.jboss.narayana.jta.jms.JmsXAResourceRecoveryHelper;

/**
 * For Java SE with Narayana: the recovery helpers for the database and the broker, registered so
 * that <b>recovery commits the broker's branch of a transaction before the database's</b>, as
 * {@link BrokerFirstTransactionHelper} makes the worker's own commit do.
 *
 * <h2>Why recovery needs it</h2>
 * A worker killed after both branches of a batch were prepared leaves both to the recovery manager
 * of its node. The database's branch holds the partition's row lock, which keeps every other node
 * from relaying the batch's groups; once it commits, the next messages of those groups are relayed.
 * Narayana's recovery does not keep the order of the worker's commit: it commits the branches it can
 * reach, in the order they were enlisted (the database's first, since the claim enlisted it), and a
 * branch whose resource it cannot reach in a pass (the broker not reachable yet after a restart:
 * {@code ARJUNA016037}, {@code ARJUNA016038}) at a later pass. Either way the partition is freed
 * while the batch's messages are still prepared, invisible, in the broker, and a consumer receives
 * the groups' next messages first.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>The broker's recovery resource is marked {@link org.jboss.tm.FirstResource}: a transaction
 *       that recovery finds on both sides in one pass has its broker branch committed first.</li>
 *   <li>The database's recovery resource commits a prepared branch only after asking the broker,
 *       on a connection of its own, for its prepared branches: while the broker still holds a
 *       prepared branch of the same transaction (same format and global transaction id), or cannot
 *       be asked, the commit fails with {@code XAER_RMFAIL} (the resource manager is unavailable),
 *       which makes Narayana keep the branch and try again at its next pass. Meanwhile the
 *       database's branch stays prepared and holds its partition; Outboxer's prepared-branch
 *       warning, health check and admin view name it. Nothing is rolled back or given up by this
 *       class.</li>
 *   <li>Rollbacks, and the recovery scans themselves, are passed through unchanged; so is
 *       everything the worker does outside recovery.</li>
 * </ul>
 *
 * <h2>What it does not guarantee</h2>
 * <ul>
 *   <li>That recovery finishes: a broker that never answers again keeps every database branch
 *       recovered through this registration prepared (also those of other transactions over that
 *       database: each recovered commit asks the broker first). So does a broker branch an operator
 *       completed heuristically and nobody told the broker to forget.</li>
 *   <li>The order if the broker answers without listing a branch it still holds (a broker that lost
 *       its journal, or one that answers before it has loaded it): the database's branch is then
 *       committed.</li>
 *   <li>Other transaction managers; an application server recovers with its own helpers.</li>
 * </ul>
 *
 * <p>Register once per node, after creating Narayana's recovery manager and before starting its
 * thread; both factories must reach the same database and broker as the worker. Credentials belong
 * in the factories (e.g. {@code PGXADataSource.setUser}, {@code ActiveMQXAConnectionFactory.setUser}).
 */
public final class BrokerFirstRecovery implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(BrokerFirstRecovery.class.getName());

  private final XARecoveryModule module;
  private final BrokerHelper brokerHelper;
  private final DatabaseHelper databaseHelper;

  private BrokerFirstRecovery(XARecoveryModule module, XADataSource database, XAConnectionFactory broker) {
    this.module = module;
    this.brokerHelper = new BrokerHelper(broker);
    this.databaseHelper = new DatabaseHelper(database, broker);
  }

  /**
   * Registers the helpers for {@code database} and {@code broker} with the XA recovery module of
   * Narayana's recovery manager ({@code RecoveryManager.manager(...)} must have been created).
   *
   * @throws IllegalStateException if Narayana's recovery manager has no XA recovery module
   */
  public static BrokerFirstRecovery register(XADataSource database, XAConnectionFactory broker) {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(broker, "broker");
    XARecoveryModule module = XARecoveryModule.getRegisteredXARecoveryModule();
    if (module == null) {
      throw new IllegalStateException("Narayana's recovery manager has no XARecoveryModule: create it with"
          + " RecoveryManager.manager(...) first, and keep com.arjuna.ats.internal.jta.recovery.arjunacore."
          + "XARecoveryModule in RecoveryEnvironmentBean.recoveryModuleClassNames");
    }
    BrokerFirstRecovery recovery = new BrokerFirstRecovery(module, database, broker);
    module.addXAResourceRecoveryHelper(recovery.brokerHelper);
    module.addXAResourceRecoveryHelper(recovery.databaseHelper);
    return recovery;
  }

  /** Removes the helpers from the recovery module and closes the database's recovery connection. */
  @Override
  public void close() {
    module.removeXAResourceRecoveryHelper(brokerHelper);
    module.removeXAResourceRecoveryHelper(databaseHelper);
    databaseHelper.close();
  }

  /** Narayana's helper for a JMS broker, its resource marked to be committed first. */
  private static final class BrokerHelper implements XAResourceRecoveryHelper {
    private final JmsXAResourceRecoveryHelper delegate;
    /** One object for every scan, so that Narayana keys its scan results alike. */
    private final XAResource first;

    BrokerHelper(XAConnectionFactory broker) {
      delegate = new JmsXAResourceRecoveryHelper(broker);
      first = new BrokerFirstTransactionHelper.FirstToCommit(delegate);
    }

    @Override
    public boolean initialise(String properties) {
      return delegate.initialise(properties);
    }

    @Override
    public XAResource[] getXAResources() {
      // Narayana's helper answers nothing while it cannot connect, itself once it can.
      return delegate.getXAResources().length == 0 ? new XAResource[0] : new XAResource[] {first};
    }
  }

  /**
   * The database's XA resource for the recovery scans, on a connection of its own, kept from scan to
   * scan and replaced once a call on it failed as the connection would ({@code XAER_RMFAIL},
   * {@code XAER_RMERR}). Narayana scans again in the middle of a pass (for every logged branch it
   * cannot find), and a resource it already handed to a branch it is about to commit must stay
   * usable: a new connection per scan closed it under that commit.
   */
  private static final class DatabaseHelper implements XAResourceRecoveryHelper {
    private final XADataSource database;
    private final XAConnectionFactory broker;
    private javax.sql.XAConnection connection;
    private CommitsAfterBroker resource;

    DatabaseHelper(XADataSource database, XAConnectionFactory broker) {
      this.database = database;
      this.broker = broker;
    }

    @Override
    public boolean initialise(String properties) {
      return true;
    }

    @Override
    public synchronized XAResource[] getXAResources() {
      if (resource != null && !resource.broken) {
        return new XAResource[] {resource};
      }
      close();
      try {
        connection = database.getXAConnection();
        resource = new CommitsAfterBroker(connection.getXAResource(), broker);
        return new XAResource[] {resource};
      } catch (SQLException e) {
        LOG.log(Level.WARNING, "Outboxer: the database cannot be reached for XA recovery, its prepared branches"
            + " wait for the next recovery pass: " + e);
        close();
        return new XAResource[0];
      }
    }

    synchronized void close() {
      resource = null;
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

  /** The database's recovery resource: commits a branch only once the broker holds none of its transaction. */
  private static final class CommitsAfterBroker extends ForwardingXAResource {
    private final XAConnectionFactory broker;
    /** A call failed as a lost connection does: the helper opens a new one at its next scan. */
    volatile boolean broken;

    CommitsAfterBroker(XAResource delegate, XAConnectionFactory broker) {
      super(delegate);
      this.broker = broker;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
      if (!onePhase) {
        requireBrokerBranchFinished(xid);
      }
      try {
        super.commit(xid, onePhase);
      } catch (XAException | RuntimeException e) {
        noteFailure(e);
        throw e;
      }
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
      try {
        return super.recover(flag);
      } catch (XAException | RuntimeException e) {
        noteFailure(e);
        throw e;
      }
    }

    @Override
    public void rollback(Xid xid) throws XAException {
      try {
        super.rollback(xid);
      } catch (XAException | RuntimeException e) {
        noteFailure(e);
        throw e;
      }
    }

    @Override
    public void forget(Xid xid) throws XAException {
      try {
        super.forget(xid);
      } catch (XAException | RuntimeException e) {
        noteFailure(e);
        throw e;
      }
    }

    private void noteFailure(Exception failure) {
      if (!(failure instanceof XAException xa)
          || xa.errorCode == XAException.XAER_RMFAIL || xa.errorCode == XAException.XAER_RMERR) {
        broken = true;
      }
    }

    private void requireBrokerBranchFinished(Xid xid) throws XAException {
      Xid[] prepared;
      try (XAConnection connection = broker.createXAConnection()) {
        XAResource resource = connection.createXASession().getXAResource();
        prepared = resource.recover(XAResource.TMSTARTRSCAN);
        resource.recover(XAResource.TMENDRSCAN);
      } catch (JMSException | XAException | RuntimeException e) {
        throw unavailable("the broker cannot be asked whether its branch of this transaction is still prepared ("
            + e + "); the database's branch is committed after the broker's, at a later recovery pass", e);
      }
      for (Xid held : prepared == null ? new Xid[0] : prepared) {
        if (held != null && held.getFormatId() == xid.getFormatId()
            && Arrays.equals(held.getGlobalTransactionId(), xid.getGlobalTransactionId())) {
          throw unavailable("the broker's branch of this transaction is still prepared; the database's branch"
              + " (which holds the batch's partition) is committed after it, at a later recovery pass", null);
        }
      }
    }

    private static XAException unavailable(String message, Throwable cause) {
      XAException exception = new XAException("Outboxer: " + message);
      exception.errorCode = XAException.XAER_RMFAIL;
      if (cause != null) {
        exception.initCause(cause);
      }
      return exception;
    }

    @Override
    public String toString() {
      return "committed after the broker: " + delegate();
    }
  }
}
