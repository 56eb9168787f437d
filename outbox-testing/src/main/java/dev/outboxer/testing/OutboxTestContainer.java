package dev.outboxer.testing;

import dev.outboxer.se.JavaSeBeans;
import dev.outboxer.se.JtaPersistence;
import dev.outboxer.se.NarayanaStore;
import dev.outboxer.se.XaDataSources;
import io.agroal.api.AgroalDataSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.UserTransaction;
import java.lang.annotation.Annotation;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * A Java SE container of real parts, the way an application runs Outboxer: Weld (CDI), Narayana
 * (JTA), an Agroal pool whose connections enlist in Narayana transactions, Hibernate ORM on that
 * pool, SmallRye Config with the test's keys, SmallRye Metrics. The pieces are outbox-java-se's
 * ({@link XaDataSources}, {@link JtaPersistence}, {@link JavaSeBeans}, {@link NarayanaStore}), which
 * applications run on with {@code JavaSeContainer}; this container adds the test's configuration,
 * beans and clock.
 *
 * <pre>{@code
 * try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
 *         .config("outbox.orders.relay", "recording")
 *         .beans(RecordingRelay.class)
 *         .start()) {
 *     container.inTransaction(() -> container.select(Outbox.class).publish("orders", message));
 * }
 * }</pre>
 */
public final class OutboxTestContainer implements AutoCloseable {

  private static final AtomicInteger CONTAINERS = new AtomicInteger();

  static {
    // Narayana keeps its transaction log in the working directory unless told otherwise.
    // A module's own settings (its surefire configuration) win.
    NarayanaStore.directory(Path.of(System.getProperty("java.io.tmpdir"), "outboxer-narayana"));
    NarayanaStore.nodeIdentifier("outboxer-test");
  }

  private final TestDatabase database;
  private final JdbcTarget target;
  private final SettableClock clock;
  private final AgroalDataSource dataSource;
  private final EntityManagerFactory entityManagerFactory;
  private final SmallRyeConfig config;
  private final WeldContainer weld;

  private OutboxTestContainer(Builder builder) throws SQLException {
    this.database = builder.database;
    this.clock = builder.clock;
    if (builder.resetSchema) {
      database.resetSchema();
    }
    JdbcTarget databaseTarget = builder.target;
    this.target = builder.jdbcUrl != null ? databaseTarget.withUrl(builder.jdbcUrl) : databaseTarget;
    List<AutoCloseable> opened = new ArrayList<>();
    try {
      dataSource = XaDataSources.pool(target.url(), target.user(), target.password(), target.xaDataSourceClass(),
          builder.poolSize);
      opened.add(dataSource);
      if (builder.viaDataSource && builder.entities.isEmpty()) {
        // Outboxer writes through the data source and the test has no entities: no JPA to start.
        entityManagerFactory = null;
      } else {
        Properties properties = new Properties();
        // The DDL scripts are the schema; validation proves the mapping agrees with them.
        properties.setProperty("hibernate.hbm2ddl.auto", "validate");
        if (target.url().startsWith("jdbc:sqlite:")) {
          // Hibernate's own dialects do not cover SQLite; the community dialect does, but is not detected.
          properties.setProperty("hibernate.dialect", "org.hibernate.community.dialect.SQLiteDialect");
        }
        properties.putAll(builder.jpaProperties);
        entityManagerFactory = JtaPersistence.entityManagerFactory("outboxer-test", dataSource, builder.entities,
            properties);
        opened.add(entityManagerFactory::close);
      }

      SmallRyeConfigBuilder configBuilder = new SmallRyeConfigBuilder();
      if (builder.defaultConfigSources) {
        configBuilder.addDefaultSources();
      }
      config = configBuilder
          .withSources(new PropertiesConfigSource(builder.config, "outboxer-test", 500))
          .withSources(builder.configSources.toArray(ConfigSource[]::new))
          .build();
      ConfigProviderResolver resolver = ConfigProviderResolver.instance();
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      try {
        resolver.releaseConfig(resolver.getConfig(loader));
      } catch (RuntimeException none) {
        // nothing registered
      }
      resolver.registerConfig(config, loader);
      opened.add(() -> resolver.releaseConfig(config));

      Weld builderWeld = new Weld("outboxer-test-" + CONTAINERS.incrementAndGet())
          .skipShutdownHook()
          .addExtension(new JavaSeBeans(entityManagerFactory, builder.viaDataSource ? dataSource : null,
              builder.applicationEntityManager))
          .addExtension(new ClockBean(clock));
      // A class that discovery finds anyway (an application's service in a bean archive) would be a second bean.
      builder.beans.stream().filter(type -> !BeanArchives.discovers(type)).forEach(builderWeld::addBeanClass);
      builder.extensions.forEach(builderWeld::addExtension);
      weld = builderWeld.initialize();
    } catch (RuntimeException | SQLException e) {
      closeAll(opened, e);
      throw e;
    }
  }

  /**
   * A container on one of Outboxer's own test databases: its schema is reset from the DDL script
   * (unless {@link Builder#keepSchema()}) and the test entity {@link TestOrder} is in the persistence unit.
   */
  public static Builder builder(TestDatabase database) {
    return new Builder(database, JdbcTarget.of(database)).entities(TestOrder.class);
  }

  /**
   * A container on a database the caller provides, reached through its driver's XA data source
   * (see {@link JdbcTarget#of(String, String, String)}): the schema is left as it is, and the
   * persistence unit holds only the {@linkplain Builder#entities entities the caller adds}.
   */
  public static Builder builder(JdbcTarget target) {
    return new Builder(null, target).keepSchema();
  }

  public <T> T select(Class<T> type, Annotation... qualifiers) {
    return weld.select(type, qualifiers).get();
  }

  /** The test database this container runs on, or null for one {@linkplain #builder(JdbcTarget) the caller provided}. */
  public TestDatabase database() {
    return database;
  }

  /** Where the container's pool connects. */
  public JdbcTarget target() {
    return target;
  }

  public SettableClock clock() {
    return clock;
  }

  /** Outboxer's tables, read with plain JDBC: what is committed. Only for a container on a {@link TestDatabase}. */
  public OutboxTables tables() {
    if (database == null) {
      throw new IllegalStateException("tables() reads one of Outboxer's test databases; this container runs on "
          + target.url());
    }
    return new OutboxTables(database);
  }

  public AgroalDataSource dataSource() {
    return dataSource;
  }

  public Config config() {
    return config;
  }

  /**
   * The transaction-scoped EntityManager Outboxer uses; only usable inside {@link #inTransaction}.
   * Absent (an unsatisfied lookup) in a container started {@link Builder#viaDataSource()} without entities.
   */
  public EntityManager entityManager() {
    return select(EntityManager.class, JavaSeBeans.OutboxPersistenceLiteral.INSTANCE);
  }

  public TransactionManager transactionManager() {
    return com.arjuna.ats.jta.TransactionManager.transactionManager();
  }

  /** Runs work in a new JTA transaction and commits, or rolls back if it throws. */
  public <T> T inTransaction(Callable<T> work) throws Exception {
    UserTransaction transaction = com.arjuna.ats.jta.UserTransaction.userTransaction();
    transaction.begin();
    T result;
    try {
      result = work.call();
    } catch (Throwable failure) {
      transaction.rollback();
      throw failure;
    }
    transaction.commit();
    return result;
  }

  public void inTransaction(ThrowingRunnable work) throws Exception {
    inTransaction(() -> {
      work.run();
      return null;
    });
  }

  /** Work that may throw. */
  @FunctionalInterface
  public interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Override
  public void close() {
    List<AutoCloseable> toClose = new ArrayList<>();
    toClose.add(weld::shutdown);
    if (entityManagerFactory != null) {
      toClose.add(entityManagerFactory::close);
    }
    toClose.add(() -> ConfigProviderResolver.instance().releaseConfig(config));
    toClose.add(dataSource);
    closeAll(toClose, null);
  }

  private static void closeAll(List<AutoCloseable> resources, Throwable primary) {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        if (primary != null) {
          primary.addSuppressed(e);
        }
      }
    }
  }

  /** Configures and starts a container. */
  public static final class Builder {
    private final TestDatabase database;
    private final JdbcTarget target;
    private final Map<String, String> config = new HashMap<>();
    private final List<Class<?>> beans = new ArrayList<>();
    private final List<Extension> extensions = new ArrayList<>();
    private final List<String> entities = new ArrayList<>();
    private final Properties jpaProperties = new Properties();
    private SettableClock clock = new SettableClock();
    private boolean resetSchema = true;
    private int poolSize = 20;
    private String jdbcUrl;
    private boolean viaDataSource;
    private boolean applicationEntityManager;
    private boolean defaultConfigSources = true;
    private final List<ConfigSource> configSources = new ArrayList<>();

    private Builder(TestDatabase database, JdbcTarget target) {
      this.database = database;
      this.target = target;
      // SmallRye Metrics would look for a Prometheus registry the tests do not need, and log SEVERE without it.
      config.put("mp.metrics.prometheus.enabled", "false");
    }

    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    public Builder config(Map<String, String> values) {
      config.putAll(values);
      return this;
    }

    /**
     * Further configuration sources, each with its own ordinal: for example SmallRye's {@code
     * EnvConfigSource} built from a map, to configure the container by environment variables.
     */
    public Builder configSources(ConfigSource... sources) {
      configSources.addAll(Arrays.asList(sources));
      return this;
    }

    /** Bean classes of the test (relays, codecs, producers), added to the container. */
    public Builder beans(Class<?>... classes) {
      beans.addAll(Arrays.asList(classes));
      return this;
    }

    /**
     * Portable extensions of the test, added to the container besides the discovered ones (for example
     * one that vetoes a library's beans, to start without them).
     */
    public Builder extensions(Extension... added) {
      extensions.addAll(Arrays.asList(added));
      return this;
    }

    public Builder entities(Class<?>... classes) {
      Arrays.stream(classes).map(Class::getName).forEach(entities::add);
      return this;
    }

    public Builder jpaProperty(String key, String value) {
      jpaProperties.setProperty(key, value);
      return this;
    }

    public Builder clock(SettableClock settableClock) {
      clock = settableClock;
      return this;
    }

    /**
     * Keep the tables of an earlier container (for restart and multi-node tests). Default: reset on a
     * {@link TestDatabase}; always kept on a database the caller provides.
     */
    public Builder keepSchema() {
      resetSchema = false;
      return this;
    }

    /**
     * The JDBC URL of the container's pool, instead of the database's own (for example with
     * per-connection settings such as PostgreSQL's {@code options=-c synchronous_commit=off}).
     * The schema is still reset through the database's own URL.
     */
    public Builder jdbcUrl(String url) {
      jdbcUrl = url;
      return this;
    }

    /**
     * Offers the transaction-scoped {@code EntityManager} of the {@linkplain #entities entities} unqualified too, for
     * the application's own services ({@code @Inject EntityManager}), unless the application produces one.
     */
    public Builder applicationEntityManager() {
      applicationEntityManager = true;
      return this;
    }

    /**
     * Gives Outboxer the pool as an {@code @OutboxPersistence DataSource} bean, as an application
     * that produces its data source does (and as {@code JavaSeContainer} does); by default Outboxer
     * goes through the EntityManager.
     */
    public Builder viaDataSource() {
      viaDataSource = true;
      return this;
    }

    /**
     * Outboxer's configuration is only the keys given here: not the default sources (system
     * properties, environment variables, {@code META-INF/microprofile-config.properties} on the
     * class path), which are added by default.
     */
    public Builder onlyGivenConfig() {
      defaultConfigSources = false;
      return this;
    }

    public Builder poolSize(int size) {
      poolSize = size;
      return this;
    }

    public OutboxTestContainer start() {
      if (database != null) {
        database.assumeAvailable();
      }
      try {
        return new OutboxTestContainer(this);
      } catch (SQLException e) {
        throw new IllegalStateException("Could not start the test container on " + target.url(), e);
      }
    }
  }

  /** The clock Outboxer reads time from, as a bean: the test steps it. */
  static final class ClockBean implements Extension {
    private final Clock clock;

    ClockBean(Clock clock) {
      this.clock = clock;
    }

    void register(@Observes AfterBeanDiscovery discovery) {
      discovery.<Clock>addBean()
          .types(Clock.class, Object.class)
          .produceWith(instance -> clock);
    }
  }
}
