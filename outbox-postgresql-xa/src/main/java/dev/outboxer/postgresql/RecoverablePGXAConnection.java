package dev.outboxer.postgresql;

import java.sql.SQLException;
import java.util.Set;
import javax.transaction.xa.XAException;
import javax.transaction.xa.Xid;
import org.postgresql.core.BaseConnection;
import org.postgresql.xa.PGXAConnection;

/**
 * pgjdbc's XA connection (it is its own {@link javax.transaction.xa.XAResource}) whose {@code
 * prepare}, {@code commit}, {@code rollback} and {@code recover} report a session that ended under
 * them as {@code XAER_RMFAIL}: see {@link RecoverablePGXADataSource}. Everything else is pgjdbc's.
 */
class RecoverablePGXAConnection extends PGXAConnection {

  /** The server ended the session: admin_shutdown, crash_shutdown, cannot_connect_now. */
  private static final Set<String> SESSION_ENDED = Set.of("57P01", "57P02", "57P03");

  RecoverablePGXAConnection(BaseConnection connection) throws SQLException {
    super(connection);
  }

  @Override
  public int prepare(Xid xid) throws XAException {
    try {
      return super.prepare(xid);
    } catch (XAException e) {
      throw recoverable(e);
    }
  }

  @Override
  public void commit(Xid xid, boolean onePhase) throws XAException {
    try {
      super.commit(xid, onePhase);
    } catch (XAException e) {
      throw recoverable(e);
    }
  }

  @Override
  public void rollback(Xid xid) throws XAException {
    try {
      super.rollback(xid);
    } catch (XAException e) {
      throw recoverable(e);
    }
  }

  @Override
  public Xid[] recover(int flag) throws XAException {
    try {
      return super.recover(flag);
    } catch (XAException e) {
      throw recoverable(e);
    }
  }

  /**
   * {@code XAER_RMFAIL} in place of the failure if one of its causes is a session the server ended
   * (57P01, 57P02, 57P03) or a connection exception (class 08); the failure itself otherwise.
   */
  static XAException recoverable(XAException failure) {
    if (failure.errorCode == XAException.XAER_RMFAIL) {
      return failure;
    }
    String state = lostSessionState(failure);
    if (state == null) {
      return failure;
    }
    XAException mapped = new XAException(failure.getMessage() + " [the session ended (SQLSTATE " + state
        + "): reported as XAER_RMFAIL instead of " + failure.errorCode + ", so that the transaction manager finishes"
        + " the branch at recovery]");
    mapped.errorCode = XAException.XAER_RMFAIL;
    mapped.initCause(failure);
    return mapped;
  }

  private static String lostSessionState(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause instanceof SQLException sql) {
        String state = sql.getSQLState();
        if (state != null && (SESSION_ENDED.contains(state) || state.startsWith("08"))) {
          return state;
        }
      }
    }
    return null;
  }
}
