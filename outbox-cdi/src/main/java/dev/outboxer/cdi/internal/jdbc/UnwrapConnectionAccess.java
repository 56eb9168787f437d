package dev.outboxer.cdi.internal.jdbc;

import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * EclipseLink (and providers like it) return the transaction's connection from {@code
 * unwrap(Connection.class)} inside a transaction: EclipseLink begins its database transaction early
 * on that call, on the JTA-enlisted connection.
 */
final class UnwrapConnectionAccess implements ConnectionAccess {

  @Override
  public <T> T call(EntityManager entityManager, SqlWork<T> work) throws SQLException {
    Connection connection = entityManager.unwrap(Connection.class);
    if (connection == null) {
      throw new SQLException("The JPA provider " + entityManager.getDelegate().getClass().getName()
          + " returned no JDBC connection from EntityManager.unwrap(Connection.class)");
    }
    return work.apply(connection);
  }
}
