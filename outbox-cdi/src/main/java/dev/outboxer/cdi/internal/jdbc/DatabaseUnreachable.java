package dev.outboxer.cdi.internal.jdbc;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Whether a failure says the database could not be reached, as opposed to a database that answered
 * and refused: a connection refused or timed out, SQLState class 08 (connection exception),
 * PostgreSQL's 57P01 to 57P03 (shutting down, starting up), a pool that could not get a connection.
 * Looks through the causes, as the failure may arrive wrapped by JPA, JTA or Outboxer itself.
 */
public final class DatabaseUnreachable {

  private DatabaseUnreachable() {}

  public static boolean is(Throwable failure) {
    return cause(failure) != null;
  }

  /** The failure that says so, for messages: the innermost SQLException of that kind, else the network one. */
  public static String describe(Throwable failure) {
    Throwable cause = cause(failure);
    return String.valueOf(cause == null ? failure : cause);
  }

  private static Throwable cause(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable found = null;
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof SQLException sql && connectionFailure(sql)) {
        return t;
      }
      if (found == null && (t instanceof ConnectException || t instanceof NoRouteToHostException
          || t instanceof SocketTimeoutException || t instanceof UnknownHostException)) {
        found = t;
      }
    }
    return found;
  }

  private static boolean connectionFailure(SQLException sql) {
    String state = sql.getSQLState();
    if (sql instanceof SQLTransientConnectionException || sql instanceof SQLNonTransientConnectionException) {
      return true;
    }
    if (state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
        || state.equals("57P03"))) {
      return true;
    }
    // Agroal and other pools say so in words, without a state.
    String message = String.valueOf(sql.getMessage()).toLowerCase(java.util.Locale.ROOT);
    return state == null && (message.contains("acquisition timeout") || message.contains("connection is not available")
        || message.contains("timed out"));
  }
}
