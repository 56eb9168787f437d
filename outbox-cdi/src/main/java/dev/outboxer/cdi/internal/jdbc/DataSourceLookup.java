package dev.outboxer.cdi.internal.jdbc;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.cdi.OutboxPersistenceLiteral;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.spi.CoreSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The application's JTA data source for Outboxer, if it names one: a CDI bean qualified {@code
 * @OutboxPersistence}, or the JNDI name in {@code outbox.datasource}. Resolved once.
 */
@ApplicationScoped
public class DataSourceLookup {

  @Inject @Any Instance<DataSource> beans;
  @Inject OutboxConfiguration configuration;

  private volatile boolean resolved;
  private volatile DataSource dataSource;

  /** The data source, or null if the application gave none (Outboxer then goes through the EntityManager). */
  public DataSource dataSource() {
    if (!resolved) {
      synchronized (this) {
        if (!resolved) {
          dataSource = resolve();
          resolved = true;
        }
      }
    }
    return dataSource;
  }

  /** Which data source Outboxer uses, in words for log messages and health checks. Resolves nothing. */
  public String describe() {
    if (configuration.dataSource().isPresent()) {
      return "data source " + configuration.dataSource().get() + " (" + ConfigKeys.global(CoreSettings.DATASOURCE) + ")";
    }
    return beans.select(OutboxPersistenceLiteral.INSTANCE).isResolvable() ? "the @OutboxPersistence data source"
        : "the data source of the @OutboxPersistence EntityManager";
  }

  private DataSource resolve() {
    Instance<DataSource> qualified = beans.select(OutboxPersistenceLiteral.INSTANCE);
    if (qualified.isResolvable()) {
      return qualified.get();
    }
    if (configuration.dataSource().isEmpty()) {
      return null;
    }
    String name = configuration.dataSource().get();
    try {
      Object found = new InitialContext().lookup(name);
      if (found instanceof DataSource source) {
        return source;
      }
      throw new OutboxConfigurationException(ConfigKeys.global(CoreSettings.DATASOURCE), ConfigKeys.global(CoreSettings.DATASOURCE) + "=" + name + " is a "
          + found.getClass().getName() + ", not a javax.sql.DataSource");
    } catch (NamingException e) {
      throw new OutboxConfigurationException(ConfigKeys.global(CoreSettings.DATASOURCE), ConfigKeys.global(CoreSettings.DATASOURCE) + "=" + name
          + " could not be looked up (" + e + "): give the JNDI name of the JTA data source that holds your business"
          + " data, as in your persistence unit's <jta-data-source>, for example jdbc/orders");
    }
  }
}
