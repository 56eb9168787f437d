package dev.outboxer.se;

import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import javax.sql.DataSource;
import org.hibernate.jpa.HibernatePersistenceProvider;

/**
 * Hibernate ORM in Java SE on a JTA data source: the EntityManagers join Narayana's transactions
 * (Hibernate's {@code JBossStandAloneJtaPlatform}), as in a server. No persistence.xml is read: the
 * entities are named here.
 */
public final class JtaPersistence {

  /** Hibernate's platform for Narayana outside a server. */
  public static final String JTA_PLATFORM =
      "org.hibernate.engine.transaction.jta.platform.internal.JBossStandAloneJtaPlatform";

  private JtaPersistence() {
  }

  /**
   * An EntityManagerFactory of the persistence unit {@code unitName}: the entity classes {@code
   * entityClassNames} on {@code jtaDataSource} (a data source whose connections enlist in Narayana's
   * transactions, such as {@link XaDataSources#pool}). {@code properties} are Hibernate's and win
   * over the JTA platform set here; for example {@code hibernate.hbm2ddl.auto}. Close it after use.
   */
  public static EntityManagerFactory entityManagerFactory(String unitName, DataSource jtaDataSource,
      List<String> entityClassNames, Properties properties) {
    Objects.requireNonNull(jtaDataSource, "jtaDataSource");
    Properties all = new Properties();
    all.setProperty("hibernate.transaction.jta.platform", JTA_PLATFORM);
    all.putAll(properties);
    return new HibernatePersistenceProvider().createContainerEntityManagerFactory(
        new JtaPersistenceUnit(unitName, jtaDataSource, entityClassNames, all), Map.of());
  }
}
