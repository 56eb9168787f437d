package dev.outboxer.testing;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.OutboxTestContainer.ThrowingRunnable;
import jakarta.inject.Inject;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs Outboxer in a JUnit 5 test, in Java SE, on a database the test names: Weld (CDI), Narayana
 * (JTA), an Agroal pool whose connections join the JTA transactions, SmallRye Config with the
 * test's {@code outbox.*} keys, SmallRye Metrics; the {@link RecordingRelay} (relay name {@code
 * recording}), which records what it is handed and fails on command; and a {@link SettableClock}
 * as the application's clock.
 *
 * <pre>{@code
 * @RegisterExtension
 * static OutboxerExtension outboxer = OutboxerExtension.builder()
 *     .jdbcUrl("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1")
 *     .outbox("orders")                 // relay=recording, polling every 100 ms
 *     .build();
 *
 * @Test
 * void paid_orders_are_relayed(Outbox outbox, RecordingRelay relay) throws Exception {
 *     outboxer.inTransaction(() -> outbox.publish(new OrderPaid(42)));
 *     assertThat(relay.awaitConfirmations(1)).extracting(OutboxRecord::groupKey).containsExactly("order:42");
 * }
 * }</pre>
 *
 * <h2>Lifecycle</h2>
 * <ul>
 *   <li>In a {@code static} field, Outboxer starts once before the class's first test and stops
 *       after its last. Before each test the messages of the extension's outboxes are deleted, the
 *       extension waits (up to 10 s) for the relay to finish the batches it is in, and the relay
 *       is {@linkplain RecordingRelay#reset() reset}; the clock is unfrozen but not set back
 *       (Outboxer stamps its claims and retry times with it, so it only moves forward). The rules
 *       and partitions Outboxer stored for its outboxes stay for the class.</li>
 *   <li>In an instance field, a new Outboxer starts before each test and stops after it (about a
 *       second each); after it stopped, every row of the extension's outboxes is deleted:
 *       messages, partitions, stored rules and group locks.</li>
 * </ul>
 *
 * <h2>Database</h2>
 * The extension creates Outboxer's schema from the DDL script of outbox-cdi.jar when its table
 * {@code outbox_message} is not there (with plain JDBC, before Outboxer starts: this works on
 * MariaDB too, unlike {@code outbox.schema=create}); a schema that is there is left to Outboxer's
 * start-up check. It only ever deletes rows of the outboxes it was configured with, and never drops
 * a table.
 *
 * <h2>Configuration</h2>
 * Outboxer sees the keys given to the builder and nothing else: not the application's {@code
 * META-INF/microprofile-config.properties} (whose relay settings would not fit the recording
 * relay), system properties or environment variables. The only system properties the extension
 * sets are Narayana's, when they are not set already: its transaction log directory ({@code
 * java.io.tmpdir/outboxer-narayana}) and node identifier.
 *
 * <h2>Injection</h2>
 * Test and lifecycle method parameters, and test instance fields annotated {@code @Inject}, of
 * these types are filled: {@link Outbox}, {@link OutboxAdmin}, {@link RecordingRelay}, {@link
 * SettableClock}, {@link DataSource} (the JTA pool), {@link OutboxerExtension}. Fields are set
 * before each test, before the test class's own {@code @BeforeEach} methods run.
 *
 * <p>Not guaranteed: isolation between test classes that run in parallel on one database (give
 * each its own database or outbox names), and anything about rows of other outboxes.
 */
public final class OutboxerExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

  /** How often the outboxes {@link Builder#outbox(String) declared with defaults} poll their partitions. */
  public static final String DEFAULT_POLL_INTERVAL = "100ms";

  /** How long the extension waits, between tests, for the relay to finish a batch it is in. */
  public static final Duration BATCH_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  private static final Pattern OUTBOX_KEY = Pattern.compile("outbox\\.([A-Za-z0-9_-]+)\\.relay");
  private static final Set<Class<?>> INJECTABLE = Set.of(Outbox.class, OutboxAdmin.class, RecordingRelay.class,
      SettableClock.class, DataSource.class, OutboxerExtension.class);

  private final JdbcTarget target;
  private final Map<String, String> config;
  private final List<Class<?>> beans;
  private final List<Class<?>> entities;
  private final Map<String, String> jpaProperties;
  private final int poolSize;
  private final Set<String> outboxes;

  private OutboxTestContainer container;
  private boolean perClass;
  /** Test classes under way that see this static extension: a class and its {@code @Nested} classes. */
  private int classesUnderWay;

  private OutboxerExtension(Builder builder) {
    this.target = builder.target;
    this.config = Map.copyOf(builder.config);
    this.beans = List.copyOf(builder.beans);
    this.entities = List.copyOf(builder.entities);
    this.jpaProperties = Map.copyOf(builder.jpaProperties);
    this.poolSize = builder.poolSize;
    this.outboxes = outboxNames(config);
  }

  /** Starts describing an extension; {@link Builder#jdbcUrl(String)} is the one required call. */
  public static Builder builder() {
    return new Builder();
  }

  // ---- what a test uses --------------------------------------------------------------------

  /** Outboxer's {@link Outbox}. Publish inside {@link #inTransaction}. */
  public Outbox outbox() {
    return running().select(Outbox.class);
  }

  /** Outboxer's {@link OutboxAdmin}. */
  public OutboxAdmin admin() {
    return running().select(OutboxAdmin.class);
  }

  /** The relay named {@code recording}: what was relayed, and failures on command. */
  public RecordingRelay relay() {
    return running().select(RecordingRelay.class);
  }

  /** The application's clock, as Outboxer reads it (retry times, ages, claims). */
  public SettableClock clock() {
    return running().clock();
  }

  /**
   * The JTA data source: a connection taken inside {@link #inTransaction} joins the transaction,
   * so business rows written through it commit or roll back with the published messages.
   */
  public DataSource dataSource() {
    return running().dataSource();
  }

  /** A bean of the running container, for the test's own beans added with {@link Builder#beans}. */
  public <T> T select(Class<T> type) {
    return running().select(type);
  }

  /** The configuration Outboxer starts with (for the kit's own tests). */
  Map<String, String> config() {
    return config;
  }

  /** The outboxes this extension was configured with (every {@code outbox.<name>.relay} key). */
  public Set<String> outboxes() {
    return outboxes;
  }

  /**
   * Runs work in a new JTA transaction and commits it; rolls it back and rethrows if the work
   * throws. Outboxer wakes the workers of a partition once a publish to it committed.
   */
  public <T> T inTransaction(Callable<T> work) throws Exception {
    return running().inTransaction(work);
  }

  /** As {@link #inTransaction(Callable)}, for work without a result. */
  public void inTransaction(ThrowingRunnable work) throws Exception {
    running().inTransaction(work);
  }

  /**
   * Moves the clock forward and wakes Outboxer's workers of every outbox of the extension at once,
   * so that a retry that became due is handed to the relay without waiting for the next poll.
   *
   * <p>First it waits (up to {@link #BATCH_DRAIN_TIMEOUT}) until none of those workers is in a run:
   * a worker stores a failure's retry time when its run commits, after the relay returned, and a
   * retry time computed after the step would be as far ahead as before. Call it after the failure
   * happened (for example after {@link RecordingRelay#awaitHanded(int)}), not before.
   */
  public void advanceClock(Duration duration) throws InterruptedException {
    awaitIdleWorkers();
    clock().advance(duration);
    WorkerWake.wakeAll(running(), outboxes);
  }

  /** Waits until no worker of the extension's outboxes is in a run on this node, or the timeout passed. */
  private void awaitIdleWorkers() throws InterruptedException {
    OutboxAdmin admin = admin();
    long deadline = System.nanoTime() + BATCH_DRAIN_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline && admin.workers().stream()
        .anyMatch(worker -> worker.running() && outboxes.contains(worker.outbox()))) {
      Thread.sleep(10);
    }
  }

  // ---- JUnit callbacks ---------------------------------------------------------------------

  @Override
  public void beforeAll(ExtensionContext context) {
    perClass = true;
    classesUnderWay++;
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (perClass && --classesUnderWay == 0) {
      stop();
      perClass = false;
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    if (perClass) {
      clearBetweenTests();
    } else {
      start();
    }
    injectFields(context.getRequiredTestInstance());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (!perClass) {
      stop();
      deleteRows(true);
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return INJECTABLE.contains(parameter.getParameter().getType());
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    if (container == null) {
      throw new ParameterResolutionException("Outboxer is not running when " + parameter.getDeclaringExecutable()
          + " needs its " + type.getSimpleName() + ": an OutboxerExtension in an instance field starts before each"
          + " test; put it in a static field to use it in @BeforeAll methods");
    }
    return valueOf(type);
  }

  // ---- internals ---------------------------------------------------------------------------

  private Object valueOf(Class<?> type) {
    if (type == OutboxerExtension.class) {
      return this;
    }
    if (type == SettableClock.class) {
      return clock();
    }
    if (type == DataSource.class) {
      return dataSource();
    }
    return running().select(type);
  }

  private OutboxTestContainer running() {
    if (container == null) {
      throw new IllegalStateException("Outboxer is not running: register the OutboxerExtension with"
          + " @RegisterExtension (static: one Outboxer for the test class; instance field: one per test)");
    }
    return container;
  }

  private void start() {
    if (container != null) {
      return;
    }
    SchemaSetup.createIfMissing(target);
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(target)
        .viaDataSource()
        .onlyGivenConfig()
        .config(config)
        .beans(RecordingRelay.class)
        .beans(beans.toArray(Class<?>[]::new))
        .poolSize(poolSize);
    if (!entities.isEmpty()) {
      // The application's entities: their tables made to fit (Outboxer's own tables are no entities), and the
      // EntityManager offered unqualified too, for the application's services.
      builder.entities(entities.toArray(Class<?>[]::new)).jpaProperty("hibernate.hbm2ddl.auto", "update")
          .applicationEntityManager();
      jpaProperties.forEach(builder::jpaProperty);
    }
    container = builder.start();
  }

  private void stop() {
    OutboxTestContainer running = container;
    container = null;
    if (running != null) {
      running.close();
    }
  }

  private void clearBetweenTests() throws InterruptedException {
    // Rows first, then the relay: a message the last test left failing must not be relayed once the
    // relay forgot to fail it. A batch a worker read before the delete can still be in the relay.
    deleteRows(false);
    RecordingRelay relay = relay();
    long deadline = System.nanoTime() + BATCH_DRAIN_TIMEOUT.toNanos();
    while (relay.batchesInFlight() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    awaitIdleWorkers();
    relay.reset();
    clock().unfreeze();
  }

  private void deleteRows(boolean everything) {
    if (outboxes.isEmpty()) {
      return;
    }
    List<String> tables = new ArrayList<>(List.of("outbox_message"));
    if (everything) {
      tables.addAll(List.of("outbox_partition", "outbox_rules"));
      if (!target.databaseName().equals("postgresql")) {
        // PostgreSQL serialises writers with advisory locks; the others with rows of this table.
        tables.add("outbox_group_lock");
      }
    }
    String placeholders = String.join(", ", java.util.Collections.nCopies(outboxes.size(), "?"));
    try (java.sql.Connection connection = target.connect()) {
      connection.setAutoCommit(true);
      for (String table : tables) {
        try (java.sql.PreparedStatement delete = connection.prepareStatement(
            "DELETE FROM " + table + " WHERE outbox IN (" + placeholders + ")")) {
          int index = 1;
          for (String outbox : outboxes) {
            delete.setString(index++, outbox);
          }
          delete.executeUpdate();
        }
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("Could not delete the rows of the outboxes " + outboxes + " at "
          + target.url() + " between tests", e);
    }
  }

  private void injectFields(Object testInstance) throws IllegalAccessException {
    for (Class<?> type = testInstance.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
      for (Field field : type.getDeclaredFields()) {
        if (field.isAnnotationPresent(Inject.class) && !Modifier.isStatic(field.getModifiers())
            && INJECTABLE.contains(field.getType())) {
          field.setAccessible(true);
          field.set(testInstance, valueOf(field.getType()));
        }
      }
    }
  }

  private static Set<String> outboxNames(Map<String, String> config) {
    Set<String> names = new TreeSet<>();
    for (String key : config.keySet()) {
      Matcher matcher = OUTBOX_KEY.matcher(key);
      if (matcher.matches()) {
        names.add(matcher.group(1));
      }
    }
    return Set.copyOf(names);
  }

  /**
   * Describes an {@link OutboxerExtension}. Defaults: no outbox (declare at least one with {@link
   * #outbox(String)} or an {@code outbox.<name>.relay} key), a pool of 10 connections, user and
   * password empty, {@code outbox.worker=executor} (Outboxer's own threads in Java SE).
   */
  public static final class Builder {
    private String url;
    private String user = "";
    private String password = "";
    private String xaDataSourceClass;
    private JdbcTarget target;
    private final Map<String, String> config = new LinkedHashMap<>();
    private final List<Class<?>> beans = new ArrayList<>();
    private final List<Class<?>> entities = new ArrayList<>();
    private final Map<String, String> jpaProperties = new LinkedHashMap<>();
    private int poolSize = 10;

    private Builder() {}

    /** The database: a JDBC URL of H2, PostgreSQL or MariaDB/MySQL (required). */
    public Builder jdbcUrl(String jdbcUrl) {
      this.url = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      return this;
    }

    /** The database and its credentials (a Testcontainers database: its URL, user and password). */
    public Builder jdbcUrl(String jdbcUrl, String userName, String userPassword) {
      this.user = userName;
      this.password = userPassword;
      return jdbcUrl(jdbcUrl);
    }

    /**
     * The driver's {@code javax.sql.XADataSource} class, for a database other than H2, PostgreSQL
     * and MariaDB/MySQL. Default: the one those drivers ship, chosen from the URL.
     */
    public Builder xaDataSourceClass(String className) {
      this.xaDataSourceClass = className;
      return this;
    }

    /**
     * Declares an outbox relayed by the {@link RecordingRelay}, with defaults for tests: {@code
     * relay=recording}, {@code poll-interval} and {@code max-poll-interval} {@value
     * OutboxerExtension#DEFAULT_POLL_INTERVAL}. Keys set with {@link #config} win, whatever their order.
     */
    public Builder outbox(String name) {
      String prefix = "outbox." + name + ".";
      config.putIfAbsent(prefix + "relay", "recording");
      config.putIfAbsent(prefix + "poll-interval", DEFAULT_POLL_INTERVAL);
      config.putIfAbsent(prefix + "max-poll-interval", DEFAULT_POLL_INTERVAL);
      return this;
    }

    /** Any Outboxer configuration key ({@code outbox.*}), as in microprofile-config.properties. */
    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    /** Several configuration keys at once. */
    public Builder config(Map<String, String> values) {
      config.putAll(values);
      return this;
    }

    /** CDI bean classes of the test (an application relay, a codec, a service that publishes). */
    public Builder beans(Class<?>... classes) {
      beans.addAll(Arrays.asList(classes));
      return this;
    }

    /**
     * The application's JPA entities: a transaction-scoped {@code EntityManager} over them (Hibernate, on the
     * test's database) is injectable with {@code @Inject EntityManager}, unless the application produces one. Their
     * tables are created or extended to fit ({@code hibernate.hbm2ddl.auto=update}; {@link #jpaProperty} changes
     * it); an entity's row commits or rolls back with the messages published in the same transaction.
     */
    public Builder entities(Class<?>... classes) {
      entities.addAll(Arrays.asList(classes));
      return this;
    }

    /** A Hibernate or JPA property of the entities' persistence unit ({@code hibernate.show_sql}). */
    public Builder jpaProperty(String key, String value) {
      jpaProperties.put(key, value);
      return this;
    }

    /** Connections in the JTA pool (default 10); Outboxer's workers hold one each while relaying. */
    public Builder poolSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("poolSize(" + size + "): a pool needs at least one connection");
      }
      this.poolSize = size;
      return this;
    }

    /**
     * The extension; nothing starts until JUnit calls it.
     *
     * @throws IllegalStateException without a {@link #jdbcUrl(String)} or without an outbox
     */
    public OutboxerExtension build() {
      if (url == null) {
        throw new IllegalStateException("OutboxerExtension.builder() needs the database: .jdbcUrl(\"jdbc:h2:mem:test;"
            + "DB_CLOSE_DELAY=-1\") or the URL, user and password of your test database");
      }
      if (outboxNames(config).isEmpty()) {
        throw new IllegalStateException("OutboxerExtension.builder() needs an outbox: .outbox(\"orders\") (relayed by"
            + " the RecordingRelay) or .config(\"outbox.orders.relay\", \"<relay>\")");
      }
      JdbcTarget chosen = xaDataSourceClass == null ? JdbcTarget.of(url, user, password)
          : new JdbcTarget(url, user, password, xaDataSourceClass);
      // SmallRye Metrics would look for a Prometheus registry a test does not need, and log SEVERE without it.
      config.putIfAbsent("mp.metrics.prometheus.enabled", "false");
      this.target = chosen;
      return new OutboxerExtension(this);
    }
  }
}
