package dev.outboxer.inbox;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.PlatformExecutor;
import dev.outboxer.spi.SettingsReader;
import dev.outboxer.spi.Setting;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Shutdown;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;

/**
 * Makes the {@link Inbox} injectable in Jakarta EE (and CDI in Java SE), configured with
 * MicroProfile Config and checked when the application starts: a missing data source, missing
 * tables or a bad key fail the deployment with a message naming the key and the fix.
 *
 * <p>Its keys are declared in {@link InboxSettings}: {@code outbox.inbox.datasource} (JNDI name of
 * the JTA data source of the consumer's transaction; by default the {@code @OutboxPersistence} data
 * source bean, else the JNDI name in {@code outbox.datasource}, else the application's {@code @Default}
 * data source bean, as Quarkus' default data source is), {@code outbox.inbox.schema}
 * ({@code validate}, the default, or {@code none}), {@code outbox.inbox.retention} with its interval and
 * chunk size (off by default: see {@link InboxRetention}) and, per outbox, {@code
 * outbox.<name>.inbox.deduplicate} ({@code group}, the default, or {@code id}). Any other key under
 * {@code outbox.inbox.} or {@code outbox.<name>.inbox.} fails the deployment.
 *
 * <p>It starts with CDI's {@link Startup} event and stops with its {@link Shutdown} event, which
 * every container fires: the servers and Weld SE around the application scope's start and end, and
 * Quarkus with its own start (after its data sources) and shutdown (before they close), where the
 * application scope's events come too early (at static initialisation) or too late.
 */
@ApplicationScoped
public class InboxProducer {

  /** The inbox's own prefix, and the per-outbox one, for finding out whether the inbox is configured. */
  private static final List<String> KEY_SPACES = List.of("outbox.inbox." + ConfigKeyNames.ANY,
      "outbox." + ConfigKeyNames.NAME + ".inbox." + ConfigKeyNames.ANY);
  private static final Pattern PER_OUTBOX = Pattern.compile("outbox\\.([^.]+)\\.inbox\\.(.+)");

  private static final Logger LOG = Logger.getLogger(InboxProducer.class.getName());
  private static final String MANAGED_EXECUTOR = "java:comp/DefaultManagedScheduledExecutorService";
  /**
   * Before Outboxer's start in Quarkus ({@code PLATFORM_BEFORE}), as outbox-health's and outbox-admin's
   * checks: a bad inbox key stops the start before any worker of the core runs.
   */
  static final int BEFORE_OUTBOXER_START = Interceptor.Priority.PLATFORM_BEFORE - 1;

  @Inject Config config;
  @Inject @Any Instance<DataSource> dataSources;
  /** The application's clock if it has one (as the core's), for the accepts' times and the retention. */
  @Inject Instance<Clock> clocks;
  /** A platform's executor where there is no Jakarta Concurrency (Quarkus' managed worker pool), for the retention. */
  @Inject @PlatformExecutor Instance<ScheduledExecutorService> platformExecutors;

  private volatile boolean stopping;
  private ScheduledExecutorService ownScheduler;
  private ScheduledFuture<?> retentionRuns;

  private volatile Inbox inbox;

  /** For CDI. */
  public InboxProducer() {}

  @Inject InboxUsage usage;

  /**
   * Builds the inbox when the application starts, so that a bad setting or missing tables fail the
   * deployment: in an application that injects the inbox or sets one of its keys. Others (a
   * publisher with {@code outbox-inbox} on its class path) are not asked to configure it; should
   * one look the inbox up programmatically, a problem is then reported at that lookup.
   */
  void start(@Observes @Priority(BEFORE_OUTBOXER_START) Startup applicationStarted) {
    if (usage.injected() || configured()) {
      inbox();
    }
  }

  /** Whether any key of the inbox is set, in any form (environment variables too). */
  private boolean configured() {
    ConfigKeyNames.Resolved names = ConfigKeyNames.resolve(config.getPropertyNames(), keyPatterns());
    for (String key : names.keys()) {
      if (key.startsWith("outbox.inbox.") || PER_OUTBOX.matcher(key).matches()) {
        return true;
      }
    }
    return false;
  }

  /**
   * @return the application's inbox, built once
   * @throws OutboxConfigurationException naming the key if the configuration is wrong
   * @throws InboxException if the tables are missing
   */
  @Produces
  public Inbox inbox() {
    Inbox built = inbox;
    if (built == null) {
      synchronized (this) {
        built = inbox;
        if (built == null) {
          built = build();
          inbox = built;
        }
      }
    }
    return built;
  }

  private Inbox build() {
    // Environment variables are found by MicroProfile Config and reported by their own names: OUTBOX_INBOX_SCHEME is
    // refused as written, with the suggestion OUTBOX_INBOX_SCHEMA.
    SettingsReader global = SettingsReader.fromConfig(InboxSettings.GLOBAL, null, this::value,
        config.getPropertyNames());
    boolean checkSchema = global.get(InboxSettings.SCHEMA).equals("validate");
    Optional<String> jndiName = global.optional(InboxSettings.DATASOURCE);
    Optional<Duration> retention = global.optional(InboxSettings.RETENTION);
    Duration retentionInterval = global.get(InboxSettings.RETENTION_INTERVAL);
    int retentionChunkSize = global.get(InboxSettings.RETENTION_CHUNK_SIZE);
    List<OutboxConfigurationException> problems = new ArrayList<>(global.problems());
    Set<String> byId = new LinkedHashSet<>();
    for (String outbox : outboxesWithInboxKeys()) {
      SettingsReader perOutbox = SettingsReader.fromConfig(InboxSettings.PER_OUTBOX, outbox, this::value,
          config.getPropertyNames());
      if (perOutbox.get(InboxSettings.DEDUPLICATE).equals("id")) {
        byId.add(outbox);
      }
      problems.addAll(perOutbox.problems());
    }
    SettingsReader.throwFirst(problems);
    Inbox.Builder builder = Inbox.builder(dataSource(jndiName)).deduplicateById(byId.toArray(String[]::new))
        .checkSchema(checkSchema);
    if (clocks.isResolvable()) {
      builder.clock(clocks.get());
    }
    Inbox built = builder.build();
    retention.ifPresent(duration -> schedule(((JdbcInbox) built).retention(duration, retentionChunkSize),
        retentionInterval));
    return built;
  }

  /**
   * Runs the retention every {@code interval}, the first at once: on the platform's executor (Quarkus'
   * managed worker pool), else on the application server's default ManagedScheduledExecutorService,
   * else (Java SE) on a daemon thread of its own.
   */
  private void schedule(InboxRetention retention, Duration interval) {
    ScheduledExecutorService executor = retentionExecutor();
    retentionRuns = executor.scheduleWithFixedDelay(() -> {
      if (stopping) {
        return;
      }
      try {
        retention.run(() -> stopping);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, e.getMessage() + " (next run in " + Setting.formatDuration(interval) + ")", e);
      }
    }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private ScheduledExecutorService retentionExecutor() {
    if (platformExecutors.isResolvable()) {
      return platformExecutors.get();
    }
    try {
      return (ScheduledExecutorService) new InitialContext().lookup(MANAGED_EXECUTOR);
    } catch (NamingException | ClassCastException | NoClassDefFoundError notThere) {
      ownScheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "outboxer-inbox-retention");
        thread.setDaemon(true);
        return thread;
      });
      return ownScheduler;
    }
  }

  /** Stops the retention's schedule: a run in progress ends after its chunk. */
  void stop(@Observes Shutdown applicationStopping) {
    stopping = true;
    if (retentionRuns != null) {
      retentionRuns.cancel(false);
    }
    if (ownScheduler != null) {
      ownScheduler.shutdownNow();
    }
  }

  /** The outboxes with a key under {@code outbox.<name>.inbox.}, dotted or as an environment variable. */
  private Set<String> outboxesWithInboxKeys() {
    Set<String> outboxes = new TreeSet<>();
    for (String key : ConfigKeyNames.resolve(config.getPropertyNames(), keyPatterns()).keys()) {
      Matcher perOutbox = PER_OUTBOX.matcher(key);
      // outbox.inbox.inbox.x is a key of the application's inbox (and "inbox" no outbox name): reported there.
      if (perOutbox.matches() && !perOutbox.group(1).equals("inbox")) {
        outboxes.add(perOutbox.group(1));
      }
    }
    return outboxes;
  }

  /** The declared keys, then the key spaces: an environment variable stands for a declared key where it can. */
  private static List<String> keyPatterns() {
    List<String> patterns = new ArrayList<>(InboxSettings.GLOBAL.keyPatterns());
    patterns.addAll(InboxSettings.PER_OUTBOX.keyPatterns());
    patterns.addAll(KEY_SPACES);
    return patterns;
  }

  private DataSource dataSource(Optional<String> jndiName) {
    String key = InboxSettings.GLOBAL.fullKey(null, InboxSettings.DATASOURCE.key());
    if (jndiName.isPresent()) {
      return lookup(key, jndiName.get());
    }
    Instance<DataSource> outboxDataSource = dataSources.select(new OutboxPersistenceLiteral());
    if (outboxDataSource.isResolvable()) {
      return outboxDataSource.get();
    }
    // The core's outbox.datasource, read through the core's declaration: the inbox's fallback, for a consumer in the
    // same application. Its problems (a blank value) are the core's to report.
    String outboxKey = CoreSettings.GLOBAL.fullKey(null, CoreSettings.DATASOURCE.key());
    Optional<String> outboxJndiName = SettingsReader.lookingUp(CoreSettings.GLOBAL, null, this::value, "")
        .optional(CoreSettings.DATASOURCE);
    if (outboxJndiName.isPresent()) {
      return lookup(outboxKey, outboxJndiName.get());
    }
    // The application's own data source bean: Quarkus' default data source (Agroal, in Narayana's transactions).
    Instance<DataSource> defaultDataSource = dataSources.select(Default.Literal.INSTANCE);
    if (defaultDataSource.isResolvable()) {
      return defaultDataSource.get();
    }
    throw new OutboxConfigurationException(key, key + " is not set, and there is neither an @OutboxPersistence"
        + " DataSource bean nor " + outboxKey + " nor a @Default DataSource bean: set " + key + " to the JNDI name of"
        + " the JTA data source your consumer's transaction writes to, for example jdbc/orders");
  }

  private static DataSource lookup(String key, String name) {
    Object found;
    try {
      found = new InitialContext().lookup(name);
    } catch (NamingException e) {
      throw new OutboxConfigurationException(key, key + "=" + name + " could not be looked up (" + e + "): give the"
          + " JNDI name of the JTA data source your consumer's transaction writes to, for example jdbc/orders");
    }
    if (found instanceof DataSource dataSource) {
      return dataSource;
    }
    throw new OutboxConfigurationException(key, key + "=" + name + " is a " + found.getClass().getName()
        + ", not a javax.sql.DataSource");
  }

  /** A key's value as configured, empty when not set or set to an empty string. */
  private Optional<String> value(String key) {
    return config.getOptionalValue(key, String.class).filter(value -> !value.isEmpty());
  }

  /** The {@link OutboxPersistence} qualifier, to find the application's data source bean. */
  @SuppressWarnings("all")
  private static final class OutboxPersistenceLiteral extends AnnotationLiteral<OutboxPersistence>
      implements OutboxPersistence {}
}
