package dev.outboxer.se;

import io.agroal.api.AgroalDataSource;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.UserTransaction;
import java.lang.annotation.Annotation;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * Runs Outboxer in a plain Java SE process, with what an application server would provide: Weld
 * (CDI, discovering the bean archives on the class path: outbox-cdi, the relays, the application's
 * classes under a {@code META-INF/beans.xml}), Narayana (JTA), an Agroal pool over the driver's XA
 * data source enlisted in Narayana's transactions, and Hibernate ORM on that pool for the
 * application's entities. Outboxer's configuration is MicroProfile Config as everywhere ({@code
 * META-INF/microprofile-config.properties}, system properties, environment variables).
 *
 * <pre>{@code
 * try (JavaSeContainer container = JavaSeContainer.builder("jdbc:postgresql://localhost/orders", "postgres", "postgres")
 *         .entities(PurchaseOrder.class)
 *         .start()) {
 *     OrderService orders = container.select(OrderService.class);
 *     container.inTransaction(() -> orders.place("ada", "book", 2));   // the order and its event commit together
 * }
 * }</pre>
 *
 * <p>The beans it adds ({@link JavaSeBeans}): the pool as the {@code @OutboxPersistence}
 * {@code DataSource} (Outboxer writes through it; on PostgreSQL its workers wake each other with
 * LISTEN/NOTIFY), a transaction-scoped {@code EntityManager} of the entities, both {@code
 * @OutboxPersistence} and unqualified, and Narayana's {@code UserTransaction}. The application's own
 * bean of one of these types wins.
 *
 * <p>{@link #close()} stops Outboxer's workers (Weld's shutdown), then Hibernate, then the pool; a
 * JVM shutdown hook does the same on Ctrl+C or SIGTERM. Not guaranteed: recovery of XA transactions
 * left prepared by a crash (see {@link XaDataSources}); a second container in the same JVM.
 */
public final class JavaSeContainer implements AutoCloseable {

  /** Narayana's object store, unless {@link Builder#objectStoreDirectory} says otherwise. */
  public static final Path DEFAULT_OBJECT_STORE_DIRECTORY = Path.of("narayana-object-store");
  /** Narayana's node identifier, unless {@link Builder#nodeIdentifier} says otherwise. */
  public static final String DEFAULT_NODE_IDENTIFIER = "outboxer";
  /** The pool's size, unless {@link Builder#poolSize} says otherwise. */
  public static final int DEFAULT_POOL_SIZE = 20;

  private final AgroalDataSource dataSource;
  private final EntityManagerFactory entityManagerFactory;
  private final WeldContainer weld;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread shutdownHook = new Thread(this::closeResources, "outboxer-shutdown");

  private JavaSeContainer(Builder builder) throws SQLException {
    NarayanaStore.directory(builder.objectStoreDirectory);
    NarayanaStore.nodeIdentifier(builder.nodeIdentifier);
    String xaDataSourceClass = builder.xaDataSourceClass != null ? builder.xaDataSourceClass
        : XaDataSources.xaDataSourceClassFor(builder.jdbcUrl);
    dataSource = XaDataSources.pool(builder.jdbcUrl, builder.user, builder.password, xaDataSourceClass,
        builder.poolSize);
    EntityManagerFactory persistenceUnit = null;
    try {
      persistenceUnit = builder.entities.isEmpty() ? null
          : JtaPersistence.entityManagerFactory("application", dataSource, builder.entities, builder.jpaProperties);
      Weld weldBuilder = new Weld("outboxer-java-se")
          .skipShutdownHook()   // ours stops Weld first, then Hibernate and the pool
          .addExtension(new JavaSeBeans(persistenceUnit, dataSource, true));
      builder.beans.forEach(weldBuilder::addBeanClass);
      weld = weldBuilder.initialize();
    } catch (RuntimeException e) {
      if (persistenceUnit != null) {
        persistenceUnit.close();
      }
      dataSource.close();
      throw e;
    }
    entityManagerFactory = persistenceUnit;
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * A container on the database at {@code jdbcUrl}, reached through its driver's XA data source
   * ({@link XaDataSources#xaDataSourceClassFor}, or {@link Builder#xaDataSourceClass}).
   */
  public static Builder builder(String jdbcUrl, String user, String password) {
    return new Builder(jdbcUrl, user, password);
  }

  /** The bean of {@code type} with {@code qualifiers}, as {@code @Inject} would give it. */
  public <T> T select(Class<T> type, Annotation... qualifiers) {
    return weld.select(type, qualifiers).get();
  }

  /** The JTA pool: a connection taken inside a transaction joins it. */
  public AgroalDataSource dataSource() {
    return dataSource;
  }

  /** Narayana's UserTransaction (the same as the bean). */
  public UserTransaction userTransaction() {
    return com.arjuna.ats.jta.UserTransaction.userTransaction();
  }

  /** Runs {@code work} in a new JTA transaction and commits, or rolls back and rethrows if it throws. */
  public <T> T inTransaction(Callable<T> work) throws Exception {
    UserTransaction transaction = userTransaction();
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

  /** Stops Outboxer's workers, then Hibernate, then the pool. Only the first call does anything. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs (or ran) this already
    }
    closeResources();
  }

  private void closeResources() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    RuntimeException failure = null;
    List<Runnable> steps = new ArrayList<>();
    steps.add(weld::shutdown);
    if (entityManagerFactory != null) {
      steps.add(entityManagerFactory::close);
    }
    steps.add(dataSource::close);
    for (Runnable step : steps) {
      try {
        step.run();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Configures and starts a {@link JavaSeContainer}. */
  public static final class Builder {
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private String xaDataSourceClass;
    private int poolSize = DEFAULT_POOL_SIZE;
    private final List<String> entities = new ArrayList<>();
    private final Properties jpaProperties = new Properties();
    private final List<Class<?>> beans = new ArrayList<>();
    private Path objectStoreDirectory = DEFAULT_OBJECT_STORE_DIRECTORY;
    private String nodeIdentifier = DEFAULT_NODE_IDENTIFIER;

    private Builder(String jdbcUrl, String user, String password) {
      this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      this.user = user;
      this.password = password;
    }

    /** The driver's {@code javax.sql.XADataSource} class. Default: from the URL (H2, PostgreSQL, MariaDB/MySQL). */
    public Builder xaDataSourceClass(String className) {
      xaDataSourceClass = Objects.requireNonNull(className, "className");
      return this;
    }

    /** The most connections the pool opens. Default: {@value #DEFAULT_POOL_SIZE}. */
    public Builder poolSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1, not " + size);
      }
      poolSize = size;
      return this;
    }

    /** The application's JPA entities; without any, no EntityManager is offered. Default: none. */
    public Builder entities(Class<?>... classes) {
      Arrays.stream(classes).map(Class::getName).forEach(entities::add);
      return this;
    }

    /** A Hibernate property of the persistence unit (for example {@code hibernate.hbm2ddl.auto}). Default: none. */
    public Builder jpaProperty(String key, String value) {
      jpaProperties.setProperty(key, value);
      return this;
    }

    /** Bean classes that are not in a bean archive (no {@code META-INF/beans.xml}). Default: none. */
    public Builder beans(Class<?>... classes) {
      beans.addAll(Arrays.asList(classes));
      return this;
    }

    /**
     * Narayana's transaction log. Default: {@code narayana-object-store} in the working directory.
     * A system property {@code ObjectStoreEnvironmentBean.objectStoreDir} wins (see {@link NarayanaStore}).
     */
    public Builder objectStoreDirectory(Path directory) {
      objectStoreDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /**
     * Narayana's node identifier, 1 to 28 bytes, one per process. Default: {@value #DEFAULT_NODE_IDENTIFIER}.
     * A system property {@code CoreEnvironmentBean.nodeIdentifier} wins.
     */
    public Builder nodeIdentifier(String identifier) {
      nodeIdentifier = Objects.requireNonNull(identifier, "identifier");
      return this;
    }

    /**
     * Starts the container: Narayana's settings, the pool, Hibernate, then Weld, which starts
     * Outboxer (and fails, naming the problem, if its configuration or schema is wrong).
     *
     * @throws IllegalStateException if the pool cannot be created, with the driver's exception as cause
     */
    public JavaSeContainer start() {
      try {
        return new JavaSeContainer(this);
      } catch (SQLException e) {
        throw new IllegalStateException("Could not create the connection pool for " + jdbcUrl + ": " + e.getMessage(), e);
      }
    }
  }
}
