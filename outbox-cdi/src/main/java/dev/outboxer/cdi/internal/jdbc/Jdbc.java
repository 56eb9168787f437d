package dev.outboxer.cdi.internal.jdbc;

import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs Outboxer's SQL on the connection of the calling thread's JTA transaction: the statements are
 * part of that transaction. The connection comes from the application's {@code @OutboxPersistence}
 * {@link DataSource} (a CDI bean, or the JNDI name in {@code outbox.datasource}) if it has one:
 * inside a transaction, a JTA data source hands out the connection already enlisted in it, the one
 * the application's own statements use. Otherwise it comes through the {@code @OutboxPersistence}
 * EntityManager, bypassing its persistence context (Outboxer maps no entities, so nothing of the
 * application's is flushed early and nothing has to be added to its persistence unit). The data
 * source is the shorter way: no persistence context is opened for Outboxer's work.
 */
@ApplicationScoped
public class Jdbc {

  @Inject EntityManagerLookup entityManagers;
  @Inject DataSourceLookup dataSources;

  private volatile ConnectionAccess access;

  /** Whether Outboxer's SQL goes through a data source rather than through an EntityManager. */
  public boolean viaDataSource() {
    return dataSources.dataSource() != null;
  }

  /** Runs the work on the current transaction's connection; must be called inside a JTA transaction. */
  public <T> T call(SqlWork<T> work) throws SQLException {
    DataSource dataSource = dataSources.dataSource();
    if (dataSource != null) {
      // Closing the handle inside the transaction keeps the enlisted connection for the rest of it.
      try (Connection connection = dataSource.getConnection()) {
        return work.apply(connection);
      }
    }
    EntityManager entityManager = ClientProxies.contextualInstance(entityManagers.entityManager());
    ConnectionAccess known = access;
    if (known == null) {
      known = ConnectionAccess.detect(entityManager);
      access = known;
    }
    return known.call(entityManager, work);
  }
}
