package dev.outboxer.jms.narayana;

import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * An {@link XAResource} that passes every call to another one: the base of a wrapper that marks a
 * branch (as {@link BrokerFirstTransactionHelper} marks the broker's to commit first) or changes one
 * call and keeps the rest.
 *
 * <p>Guarantee: each call reaches the delegate unchanged, with its result and its {@link XAException};
 * {@link #isSameRM} compares the delegates when both sides are wrappers, so that the transaction
 * manager joins branches of one resource manager as it would without the wrapper. It adds nothing
 * else: no logging, no retries, and no recovery of its own (a wrapper is lost with its node, and
 * recovery sees the delegate's branches).
 */
public abstract class ForwardingXAResource implements XAResource {

  private final XAResource delegate;

  /** Forwards to {@code delegate}. */
  protected ForwardingXAResource(XAResource delegate) {
    this.delegate = delegate;
  }

  /** The resource every call goes to. */
  public final XAResource delegate() {
    return delegate;
  }

  @Override
  public void commit(Xid xid, boolean onePhase) throws XAException {
    delegate.commit(xid, onePhase);
  }

  @Override
  public void end(Xid xid, int flags) throws XAException {
    delegate.end(xid, flags);
  }

  @Override
  public void forget(Xid xid) throws XAException {
    delegate.forget(xid);
  }

  @Override
  public int getTransactionTimeout() throws XAException {
    return delegate.getTransactionTimeout();
  }

  @Override
  public boolean isSameRM(XAResource other) throws XAException {
    return delegate.isSameRM(other instanceof ForwardingXAResource wrapper ? wrapper.delegate : other);
  }

  @Override
  public int prepare(Xid xid) throws XAException {
    return delegate.prepare(xid);
  }

  @Override
  public Xid[] recover(int flag) throws XAException {
    return delegate.recover(flag);
  }

  @Override
  public void rollback(Xid xid) throws XAException {
    delegate.rollback(xid);
  }

  @Override
  public boolean setTransactionTimeout(int seconds) throws XAException {
    return delegate.setTransactionTimeout(seconds);
  }

  @Override
  public void start(Xid xid, int flags) throws XAException {
    delegate.start(xid, flags);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + ": " + delegate;
  }
}
