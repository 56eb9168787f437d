package dev.outboxer.cdi.internal.jdbc;

import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.sql.SQLException;

/**
 * Runs Outboxer's SQL on the connection of the calling thread's JTA transaction, through the
 * application's {@code @OutboxPersistence} EntityManager: the statements are part of that
 * transaction, and bypass the persistence context (Outboxer maps no entities, so nothing of the
 * application's is flushed early and nothing has to be added to its persistence unit).
 */
@ApplicationScoped
public class Jdbc {

  @Inject EntityManagerLookup entityManagers;

  private volatile ConnectionAccess access;

  /** Runs the work on the current transaction's connection; must be called inside a JTA transaction. */
  public <T> T call(SqlWork<T> work) throws SQLException {
    EntityManager entityManager = ClientProxies.contextualInstance(entityManagers.entityManager());
    ConnectionAccess known = access;
    if (known == null) {
      known = ConnectionAccess.detect(entityManager);
      access = known;
    }
    return known.call(entityManager, work);
  }
}
