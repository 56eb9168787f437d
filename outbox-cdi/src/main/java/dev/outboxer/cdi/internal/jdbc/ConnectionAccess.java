package dev.outboxer.cdi.internal.jdbc;

import jakarta.persistence.EntityManager;
import java.sql.SQLException;

/**
 * How to reach the JDBC connection behind a JPA persistence context: the connection the caller's
 * JTA transaction uses, so that Outboxer's statements commit with the application's. JPA 3.1 has
 * no portable way (3.2's {@code runWithConnection} is not available on EE 10 servers), so there is
 * one implementation per provider.
 */
interface ConnectionAccess {

  <T> T call(EntityManager entityManager, SqlWork<T> work) throws SQLException;

  /**
   * Hibernate is recognised by unwrapping its {@code Session} (when the application sees Hibernate
   * at all); any other provider, EclipseLink first, is used with {@code unwrap(Connection.class)}.
   */
  static ConnectionAccess detect(EntityManager entityManager) {
    Class<?> session = hibernateSession();
    if (session != null) {
      try {
        entityManager.unwrap(session);
        // Only loaded here: in a server without Hibernate the class would not link.
        return new HibernateConnectionAccess();
      } catch (RuntimeException notHibernate) {
        // Hibernate is on the class path, but this persistence unit uses another provider.
      }
    }
    return new UnwrapConnectionAccess();
  }

  private static Class<?> hibernateSession() {
    for (ClassLoader loader : new ClassLoader[] {Thread.currentThread().getContextClassLoader(),
        ConnectionAccess.class.getClassLoader()}) {
      if (loader == null) {
        continue;
      }
      try {
        return Class.forName("org.hibernate.Session", false, loader);
      } catch (ClassNotFoundException | LinkageError absent) {
        // try the next loader
      }
    }
    return null;
  }
}
