package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.tx.Transactions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Which database the EntityManager talks to: from {@code outbox.database}, or detected at start-up
 * by probing statements that only one database understands, each in a transaction of its own (a
 * failed statement dooms the transaction it runs in).
 */
@ApplicationScoped
public class Database {

  private static final Logger LOG = Logger.getLogger(Database.class.getName());
  private static final String[] PROBES = {
    "SELECT version()", // PostgreSQL, MariaDB
    "SELECT H2VERSION()",
    "VALUES SYSCS_UTIL.SYSCS_GET_DATABASE_PROPERTY('DataDictionaryVersion')"
  };
  private static final String[] PROBE_NAMES = {null, "H2", "Apache Derby"};

  @Inject EntityManagerLookup entityManagers;
  @Inject Transactions transactions;
  @Inject OutboxConfiguration configuration;

  private volatile SqlDialect dialect;

  /** The dialect; detected on first use outside a transaction, or from the JDBC connection inside one. */
  public SqlDialect dialect() {
    SqlDialect known = dialect;
    if (known == null) {
      known = configured().orElseGet(this::detect);
      dialect = known;
    }
    return known;
  }

  private Optional<SqlDialect> configured() {
    return configuration.database().flatMap(SqlDialect::fromConfig);
  }

  private SqlDialect detect() {
    if (transactions.isActive()) {
      return fromConnection(entityManagers.entityManager())
          .orElseThrow(() -> new OutboxException("Outboxer has not detected the database yet and cannot probe it inside"
              + " the caller's transaction: set outbox.database (postgresql, mariadb, h2 or derby)"));
    }
    // Providers that hand out the transaction's JDBC connection (EclipseLink) tell the product name
    // without a statement that fails on the other databases: EclipseLink logs each failed probe as a
    // warning with a stack trace, twice per start on Derby.
    try {
      Optional<SqlDialect> fromMetadata = transactions.inNewTransaction(Duration.ofSeconds(30),
          () -> fromConnection(entityManagers.entityManager()));
      if (fromMetadata.isPresent()) {
        LOG.info("Outboxer detected the database: " + fromMetadata.get().configValue() + " (JDBC metadata)");
        return fromMetadata.get();
      }
    } catch (Exception notAvailable) {
      LOG.log(Level.FINE, "Reading the database product from the JDBC connection failed; probing", notAvailable);
    }
    for (int i = 0; i < PROBES.length; i++) {
      String sql = PROBES[i];
      String fixedName = PROBE_NAMES[i];
      try {
        Object answer = transactions.inNewTransaction(Duration.ofSeconds(30), () -> {
          EntityManager em = entityManagers.entityManager();
          return em.createNativeQuery(sql).setFlushMode(FlushModeType.COMMIT).getSingleResult();
        });
        Optional<SqlDialect> found = SqlDialect.fromProductName(fixedName != null ? fixedName : String.valueOf(answer));
        if (found.isPresent()) {
          LOG.info("Outboxer detected the database: " + found.get().configValue() + " (" + answer + ")");
          return found.get();
        }
        throw new OutboxException("Outboxer does not support the database that answered '" + answer + "' to " + sql
            + ": supported are PostgreSQL, MariaDB, H2 and Derby (MySQL has no sequences)");
      } catch (OutboxException unsupported) {
        throw unsupported;
      } catch (Exception probeFailed) {
        LOG.log(Level.FINE, "Database probe failed: " + sql, probeFailed);
      }
    }
    throw new OutboxException("Outboxer could not detect the database behind the EntityManager: set outbox.database"
        + " (postgresql, mariadb, h2 or derby)");
  }

  /** EclipseLink (and other providers) hand out the transaction's connection; Hibernate does not. */
  private static Optional<SqlDialect> fromConnection(EntityManager em) {
    try {
      Connection connection = em.unwrap(Connection.class);
      return connection == null ? Optional.empty() : SqlDialect.fromProductName(connection.getMetaData().getDatabaseProductName());
    } catch (Exception notSupported) {
      return Optional.empty();
    }
  }
}
