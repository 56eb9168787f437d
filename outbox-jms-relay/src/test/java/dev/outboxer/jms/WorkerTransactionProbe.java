package dev.outboxer.jms;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.transaction.Synchronization;
import java.util.function.Supplier;

/**
 * A pass-through {@link ConnectionFactory} that lets a test act inside a partition worker's JTA
 * transaction. The relay opens its connection on the worker's thread, inside that transaction
 * (after the worker claimed the partition and read the rows, before it sends); at that moment the
 * probe registers the test's {@link Synchronization} as an interposed one. Its {@code
 * beforeCompletion} then runs at the worker's commit, after the relay sent and confirmed the batch
 * and the worker deleted the confirmed rows; throwing there makes the commit fail as a database
 * failing at commit would.
 *
 * <p>Nothing else changes: the relay, the core and Narayana's enlistment of the XA session are the
 * real ones.
 */
final class WorkerTransactionProbe implements ConnectionFactory {

  private static final Supplier<Synchronization> NOTHING = () -> null;

  private final ConnectionFactory delegate;
  private volatile Supplier<Synchronization> onConnection = NOTHING;

  WorkerTransactionProbe(ConnectionFactory delegate) {
    this.delegate = delegate;
  }

  /**
   * From now on, every connection the relay opens registers what {@code synchronizations} returns
   * (nothing for {@code null}) in the current transaction.
   */
  void registerOnEachConnection(Supplier<Synchronization> synchronizations) {
    onConnection = synchronizations;
  }

  /** Stops registering. A batch already past its connection keeps its synchronization. */
  void disarm() {
    onConnection = NOTHING;
  }

  private void probe() {
    Synchronization synchronization = onConnection.get();
    if (synchronization != null) {
      jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()
          .registerInterposedSynchronization(synchronization);
    }
  }

  @Override
  public Connection createConnection() throws JMSException {
    probe();
    return delegate.createConnection();
  }

  @Override
  public Connection createConnection(String userName, String password) throws JMSException {
    probe();
    return delegate.createConnection(userName, password);
  }

  @Override
  public JMSContext createContext() {
    probe();
    return delegate.createContext();
  }

  @Override
  public JMSContext createContext(String userName, String password) {
    probe();
    return delegate.createContext(userName, password);
  }

  @Override
  public JMSContext createContext(String userName, String password, int sessionMode) {
    probe();
    return delegate.createContext(userName, password, sessionMode);
  }

  @Override
  public JMSContext createContext(int sessionMode) {
    probe();
    return delegate.createContext(sessionMode);
  }
}
