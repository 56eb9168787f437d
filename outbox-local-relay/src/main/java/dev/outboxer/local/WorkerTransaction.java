package dev.outboxer.local;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The partition worker's JTA transaction, as the relay sees it on the worker's thread. */
final class WorkerTransaction {

  private static final Logger LOG = Logger.getLogger(WorkerTransaction.class.getName());

  private final TransactionSynchronizationRegistry registry;

  WorkerTransaction(TransactionSynchronizationRegistry registry) {
    this.registry = registry;
  }

  int status() {
    return registry.getTransactionStatus();
  }

  /** Whether work done now can still commit. */
  boolean canCommit() {
    return status() == Status.STATUS_ACTIVE;
  }

  /**
   * Makes sure the transaction cannot commit: a handler's partial writes must never commit without
   * the deletion of its message. {@code setRollbackOnly} is irreversible in JTA; should the
   * transaction manager not take it, a synchronization that fails {@code beforeCompletion} forces
   * the rollback at commit.
   */
  void doom() {
    try {
      registry.setRollbackOnly();
    } catch (IllegalStateException ended) {
      // No transaction any more (rolled back by its timeout): nothing of it can commit.
      return;
    }
    if (canCommit()) {
      LOG.log(Level.WARNING, "The transaction manager did not mark the worker's transaction for rollback;"
          + " the local relay fails its commit instead");
      registry.registerInterposedSynchronization(new Synchronization() {
        @Override
        public void beforeCompletion() {
          throw new IllegalStateException("A local handler failed in this transaction: it must not commit");
        }

        @Override
        public void afterCompletion(int status) {}
      });
    }
  }

  static String describe(int status) {
    return switch (status) {
      case Status.STATUS_ACTIVE -> "active";
      case Status.STATUS_MARKED_ROLLBACK -> "marked for rollback";
      case Status.STATUS_ROLLEDBACK -> "rolled back";
      case Status.STATUS_ROLLING_BACK -> "rolling back";
      case Status.STATUS_NO_TRANSACTION -> "no transaction";
      case Status.STATUS_COMMITTED -> "committed";
      case Status.STATUS_COMMITTING -> "committing";
      case Status.STATUS_PREPARED -> "prepared";
      case Status.STATUS_PREPARING -> "preparing";
      default -> "unknown (" + status + ")";
    };
  }
}
