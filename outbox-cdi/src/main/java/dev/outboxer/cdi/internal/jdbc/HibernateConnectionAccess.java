package dev.outboxer.cdi.internal.jdbc;

import jakarta.persistence.EntityManager;
import java.sql.SQLException;
import org.hibernate.Session;

/**
 * Hibernate hands out the session's connection through {@link Session#doReturningWork}; it is the
 * connection enlisted in the current JTA transaction (acquired on first use).
 */
final class HibernateConnectionAccess implements ConnectionAccess {

  @Override
  public <T> T call(EntityManager entityManager, SqlWork<T> work) throws SQLException {
    Session session = entityManager.unwrap(Session.class);
    try {
      return session.doReturningWork(connection -> {
        try {
          return work.apply(connection);
        } catch (SQLException e) {
          // Hibernate would translate it into its own exception; carry it through untouched.
          throw new Tunnel(e);
        }
      });
    } catch (Tunnel tunnel) {
      throw tunnel.sqlException;
    }
  }

  private static final class Tunnel extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient SQLException sqlException;

    Tunnel(SQLException sqlException) {
      super(sqlException.getMessage(), null, false, false);
      this.sqlException = sqlException;
    }
  }
}
