package dev.outboxer.cdi.internal.tx;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.jdbc.DataSourceLookup;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.store.Database;
import dev.outboxer.cdi.internal.store.Dialect;
import dev.outboxer.spi.CoreSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import javax.sql.XADataSource;

/**
 * Checks at start-up, on a node with workers, that the outbox's database can take part in a
 * two-phase commit when a relay enlists a resource of its own in the worker's JTA transaction
 * ({@link dev.outboxer.spi.Relay#enlistsInWorkerTransaction()}): otherwise every batch would fail
 * at its commit (a server refuses a non-XA resource next to an XA one; PostgreSQL with {@code
 * max_prepared_transactions=0} refuses {@code PREPARE TRANSACTION}), and the deployment would look
 * green. What cannot be told here (an application server's data source wrapper) is left to the
 * server.
 */
@ApplicationScoped
public class TwoPhaseCommitCheck {

  /** The PostgreSQL setting that allows prepared transactions; 0, its default, allows none. */
  static final String MAX_PREPARED_TRANSACTIONS = "max_prepared_transactions";

  @Inject Database database;
  @Inject Transactions transactions;
  @Inject Jdbc jdbc;
  @Inject DataSourceLookup dataSources;
  @Inject EntityManagerLookup entityManagers;
  @Inject OutboxConfiguration configuration;

  /** What Outboxer can tell of a data source. */
  enum Kind { XA, NOT_XA, UNKNOWN }

  /**
   * @param enlisting outbox name to relay name, for every outbox whose relay enlists; nothing to do
   *     if empty
   * @throws OutboxConfigurationException naming the data source or the setting and the fix
   */
  public void verify(Map<String, String> enlisting) throws Exception {
    if (enlisting.isEmpty()) {
      return;
    }
    String why = "outbox" + (enlisting.size() > 1 ? "es " : " ") + describe(enlisting) + " relay"
        + (enlisting.size() > 1 ? "" : "s") + " through a relay that enlists in the worker's JTA transaction (for JMS:"
        + " a JTA-aware, XA connection factory), so the worker's transaction commits in two phases";
    Optional<DataSource> dataSource = dataSource();
    String described = describeDataSource();
    if (dataSource.isPresent()) {
      Kind kind = kind(dataSource.get());
      if (kind == Kind.NOT_XA) {
        Dialect dialect = database.dialect();
        throw new OutboxConfigurationException(dataSourceKey(), "The " + why + ", and " + described
            + " is not an XA data source (its connections come from " + providerClass(dataSource.get()) + "): "
            + (dialect == Dialect.SQLITE ? "SQLite has no XA, so use a relay that does not enlist (for JMS: a plain,"
                + " non-XA connection factory; delivery is then at-least-once)"
                : "make it one (Open Liberty: <dataSource type=\"javax.sql.XADataSource\">; WildFly: <xa-datasource>;"
                + " Quarkus: quarkus.datasource.jdbc.transactions=xa; Agroal: connectionProviderClassName="
                + xaClassOf(dialect) + "), or use a relay that does not"
                + " enlist (for JMS: a plain, non-XA connection factory; delivery is then at-least-once)"));
      }
    }
    if (database.dialect() == Dialect.POSTGRESQL) {
      int prepared = transactions.inNewTransaction(Duration.ofSeconds(30), () -> jdbc.call(
          TwoPhaseCommitCheck::maxPreparedTransactions));
      requirePreparedTransactions(prepared, why);
    }
  }

  /** PostgreSQL's {@code max_prepared_transactions} as the server reports it. */
  static int maxPreparedTransactions(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW " + MAX_PREPARED_TRANSACTIONS)) {
      rows.next();
      return Integer.parseInt(rows.getString(1).trim());
    }
  }

  /** @throws OutboxConfigurationException if the value allows no prepared transaction */
  static void requirePreparedTransactions(int maxPreparedTransactions, String why) {
    if (maxPreparedTransactions <= 0) {
      throw new OutboxConfigurationException(MAX_PREPARED_TRANSACTIONS, "The " + why + ", and PostgreSQL's "
          + MAX_PREPARED_TRANSACTIONS + " is " + maxPreparedTransactions + " on the outbox's database, so it refuses to"
          + " prepare its branch and every batch would fail at its commit. Allow prepared transactions (at least one"
          + " per worker thread of every node): ALTER SYSTEM SET " + MAX_PREPARED_TRANSACTIONS + " = 20; then restart"
          + " PostgreSQL (or start it with -c " + MAX_PREPARED_TRANSACTIONS + "=20). Or use a relay that does not"
          + " enlist (for JMS: a plain, non-XA connection factory; delivery is then at-least-once)");
    }
  }

  /**
   * XA if the data source is or wraps an {@link XADataSource}, or is an Agroal pool over one; NOT_XA
   * for an Agroal pool over a driver or a plain data source; UNKNOWN otherwise (a server's wrapper).
   */
  static Kind kind(DataSource dataSource) {
    if (dataSource instanceof XADataSource) {
      return Kind.XA;
    }
    try {
      if (dataSource.isWrapperFor(XADataSource.class)) {
        return Kind.XA;
      }
    } catch (SQLException | RuntimeException cannotTell) {
      // A wrapper that does not answer: try what else is known.
    }
    Class<?> provider = agroalConnectionProvider(dataSource);
    if (provider == null) {
      return Kind.UNKNOWN;
    }
    return XADataSource.class.isAssignableFrom(provider) ? Kind.XA : Kind.NOT_XA;
  }

  /**
   * The class an Agroal pool makes its connections with, read through Agroal's public API by
   * reflection (Agroal is one pool among others, not a dependency); null if it is not an Agroal pool.
   */
  private static Class<?> agroalConnectionProvider(DataSource dataSource) {
    ClassLoader loader = dataSource.getClass().getClassLoader();
    try {
      Class<?> agroal = Class.forName("io.agroal.api.AgroalDataSource", false, loader);
      if (!agroal.isInstance(dataSource)) {
        return null;
      }
      Object configuration = agroal.getMethod("getConfiguration").invoke(dataSource);
      Object pool = Class.forName("io.agroal.api.configuration.AgroalDataSourceConfiguration", false, loader)
          .getMethod("connectionPoolConfiguration").invoke(configuration);
      Object factory = Class.forName("io.agroal.api.configuration.AgroalConnectionPoolConfiguration", false, loader)
          .getMethod("connectionFactoryConfiguration").invoke(pool);
      return (Class<?>) Class.forName("io.agroal.api.configuration.AgroalConnectionFactoryConfiguration", false,
          loader).getMethod("connectionProviderClass").invoke(factory);
    } catch (ReflectiveOperationException | LinkageError | RuntimeException notAgroal) {
      return null;
    }
  }

  private static String providerClass(DataSource dataSource) {
    Class<?> provider = agroalConnectionProvider(dataSource);
    return provider != null ? provider.getName() : dataSource.getClass().getName();
  }

  private static String xaClassOf(Dialect dialect) {
    return switch (dialect) {
      // The wrapper lets the transaction manager finish a branch whose session was terminated (README: Prepared branches).
      case POSTGRESQL -> "org.postgresql.xa.PGXADataSource, or dev.outboxer.postgresql.RecoverablePGXADataSource of"
          + " outbox-postgresql-xa";
      case MARIADB -> "org.mariadb.jdbc.MariaDbDataSource";
      case H2 -> "org.h2.jdbcx.JdbcDataSource";
      case SQLITE -> "none";
    };
  }

  /**
   * The outbox's data source: the {@code @OutboxPersistence} or {@code outbox.datasource} one, or
   * the JTA data source the persistence unit was given (which the ORM keeps among its properties).
   */
  private Optional<DataSource> dataSource() throws Exception {
    DataSource direct = dataSources.dataSource();
    if (direct != null) {
      return Optional.of(direct);
    }
    return transactions.inNewTransaction(Duration.ofSeconds(30), () -> {
      Map<String, Object> properties;
      try {
        EntityManager entityManager = entityManagers.entityManager();
        properties = entityManager.getEntityManagerFactory().getProperties();
      } catch (RuntimeException cannotTell) {
        // A container-managed EntityManager that does not give its factory away: the data source stays unknown,
        // and the server's own check applies at the first batch.
        return Optional.<DataSource>empty();
      }
      for (String key : new String[] {"jakarta.persistence.jtaDataSource", "javax.persistence.jtaDataSource",
          "hibernate.connection.datasource"}) {
        if (properties.get(key) instanceof DataSource found) {
          return Optional.of(found);
        }
      }
      return Optional.<DataSource>empty();
    });
  }

  private String describeDataSource() {
    if (configuration.dataSource().isPresent() && dataSources.dataSource() != null) {
      return "the data source " + ConfigKeys.global(CoreSettings.DATASOURCE) + "=" + configuration.dataSource().get();
    }
    return dataSources.dataSource() != null ? "the @" + OutboxPersistence.class.getSimpleName() + " data source"
        : "the JTA data source of the @" + OutboxPersistence.class.getSimpleName() + " EntityManager's persistence unit";
  }

  private String dataSourceKey() {
    return configuration.dataSource().isPresent() ? ConfigKeys.global(CoreSettings.DATASOURCE) : "@" + OutboxPersistence.class.getSimpleName();
  }

  private static String describe(Map<String, String> enlisting) {
    StringBuilder text = new StringBuilder();
    enlisting.forEach((outbox, relay) -> text.append(text.length() == 0 ? "" : ", ").append('\'').append(outbox)
        .append("' (").append(ConfigKeys.key(outbox, CoreSettings.RELAY)).append('=').append(relay).append(')'));
    return text.toString();
  }
}
