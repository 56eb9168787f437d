package dev.outboxer.jms;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * Stands in for the worker's database (where the confirmed rows are deleted) as a second resource
 * of the worker's transaction, so that it commits in two phases as in production. It votes yes,
 * or no as a database does whose lock was lost or whose disk is full.
 */
final class StandInDatabaseXAResource implements XAResource {

  private final boolean votesYes;

  private StandInDatabaseXAResource(boolean votesYes) {
    this.votesYes = votesYes;
  }

  static StandInDatabaseXAResource votingYes() {
    return new StandInDatabaseXAResource(true);
  }

  static StandInDatabaseXAResource votingNo() {
    return new StandInDatabaseXAResource(false);
  }

  @Override
  public int prepare(Xid xid) throws XAException {
    if (votesYes) {
      return XA_OK;
    }
    throw new XAException(XAException.XA_RBROLLBACK);
  }

  @Override
  public void commit(Xid xid, boolean onePhase) throws XAException {
    if (!votesYes) {
      throw new XAException(XAException.XAER_PROTO);
    }
  }

  @Override
  public void rollback(Xid xid) {}

  @Override
  public void start(Xid xid, int flags) {}

  @Override
  public void end(Xid xid, int flags) {}

  @Override
  public void forget(Xid xid) {}

  @Override
  public Xid[] recover(int flag) {
    return new Xid[0];
  }

  @Override
  public boolean isSameRM(XAResource other) {
    return other == this;
  }

  @Override
  public int getTransactionTimeout() {
    return 0;
  }

  @Override
  public boolean setTransactionTimeout(int seconds) {
    return false;
  }
}
