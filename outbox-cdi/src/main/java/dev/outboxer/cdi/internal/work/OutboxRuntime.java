package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.config.WorkerMode;
import dev.outboxer.cdi.internal.jdbc.DataSourceLookup;
import dev.outboxer.cdi.internal.jdbc.DatabaseUnreachable;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.publish.MessageLimits;
import dev.outboxer.cdi.internal.publish.OutboxPublisher;
import dev.outboxer.cdi.internal.store.Database;
import dev.outboxer.cdi.internal.store.Dialect;
import dev.outboxer.cdi.internal.store.RulesStore;
import dev.outboxer.cdi.internal.store.SchemaManager;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.MessageConstraints;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts Outboxer with the application, before the application's own start-up observers: detects
 * the database, checks the payload codec and the schema, brings each outbox's persisted rules in
 * line with its configuration, sets the message limits, registers the metrics and starts this
 * node's workers. Says in one INFO line per outbox what it started. Stops the workers before the
 * application's beans go away.
 *
 * <p>A configuration error found without the database fails the application's start. A database
 * that cannot be reached does not: the application starts, Outboxer says so in one WARNING, is not
 * {@linkplain #ready() ready} (the readiness check reports why), refuses to publish, and tries the
 * start-up again on the workers' executor, after 1 s, doubling up to 30 s, until the database
 * answers. A problem found only then (the schema, the rules) can no longer fail the deployment: it
 * is logged at SEVERE and keeps Outboxer not ready, with that reason, until the node is restarted.
 */
@ApplicationScoped
public class OutboxRuntime {

  private static final Logger LOG = Logger.getLogger(OutboxRuntime.class.getName());
  private static final int RULES_ATTEMPTS = 3;
  /** PostgreSQL's bytea holds at most 1 GB. */
  private static final long POSTGRESQL_MAX_PAYLOAD = (1L << 30) - 1;
  /** H2's VARBINARY column as the shipped DDL declares it. */
  private static final long H2_MAX_PAYLOAD = 1_000_000_000L;
  /**
   * Room in a MariaDB packet for the rest of the insert at its largest: the driver sends it as text,
   * and 64 KiB of headers grow up to 16-fold on the way (a one-byte control-character name with an
   * empty value is {@code "\u0001":"",} in JSON, and the driver escapes the backslash and the
   * quotes again), plus 64 KiB for the keys, the type and the statement itself.
   */
  static final long MARIADB_PACKET_ROOM = 16 * 64 * 1024 + 64 * 1024;
  /** SQLite's default SQLITE_MAX_LENGTH, the largest string or BLOB (the xerial driver's build keeps it). */
  private static final long SQLITE_MAX_PAYLOAD = 1_000_000_000L;

  @Inject OutboxConfiguration configuration;
  @Inject Database database;
  @Inject SchemaManager schema;
  @Inject RulesStore rules;
  @Inject Transactions transactions;
  @Inject Jdbc jdbc;
  @Inject TimeSource time;
  @Inject Workers workers;
  @Inject Relays relays;
  @Inject OutboxMetrics metrics;
  @Inject BacklogMonitor backlog;
  @Inject OutboxPublisher publisher;
  @Inject MessageLimits limits;
  @Inject CrossNodeWakeUp wakeUp;

  static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  static final Duration MAX_RETRY = Duration.ofSeconds(30);

  @Inject DataSourceLookup dataSources;

  private volatile boolean ready;
  /** Why Outboxer has not started (yet), null when it has or before it tried. */
  private volatile String notStartedReason;
  private volatile boolean stopping;
  private volatile boolean gaugesRegistered;
  private ScheduledFuture<?> retry;
  private long waitingSince;

  void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class) Object event)
      throws Exception {
    start();
  }

  /**
   * Starts Outboxer: what the application's start does in a CDI container. A platform whose
   * application-scope initialisation comes before its data sources (Quarkus fires it at static
   * initialisation) calls this at its own start instead, and disables the observer.
   *
   * @throws Exception a configuration or schema problem that must fail the application's start
   */
  public void start() throws Exception {
    if (configuration.outboxes().isEmpty()) {
      LOG.info("Outboxer: no outbox is configured (outbox.<name>.relay); nothing to start");
      ready = true;
      return;
    }
    publisher.checkCodec();
    try {
      startUp();
    } catch (Exception e) {
      if (!DatabaseUnreachable.is(e)) {
        throw e;
      }
      waitingSince = System.nanoTime();
      String reason = "waiting for the database (" + dataSources.describe() + "): " + DatabaseUnreachable.describe(e);
      notStarted(reason);
      LOG.warning("Outboxer has not started: " + reason + (reason.endsWith(".") ? "" : ".") + " The application"
          + " starts; Outboxer is not ready (readiness check outbox-started is DOWN), refuses to publish, and tries"
          + " again after " + FIRST_RETRY.toSeconds() + "s, doubling up to " + MAX_RETRY.toSeconds() + "s: it starts"
          + " as soon as the database answers.");
      scheduleRetry(FIRST_RETRY);
    }
  }

  private void notStarted(String reason) {
    notStartedReason = reason;
    limits.notStarted(reason == null ? null : "Outboxer has not started yet: " + reason);
  }

  private synchronized void scheduleRetry(Duration delay) {
    if (stopping) {
      return;
    }
    try {
      retry = workers.startUpExecutor().schedule(() -> retryStartUp(delay), delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.log(Level.SEVERE, "Outboxer could not schedule its start-up while waiting for the database (" + e
          + "); it stays not ready. Restart the node.", e);
      notStarted("its start-up could not be scheduled: " + e);
    }
  }

  private void retryStartUp(Duration delay) {
    if (stopping) {
      return;
    }
    try {
      startUp();
      notStarted(null);
      LOG.info("Outboxer: the database answers after " + (System.nanoTime() - waitingSince) / 1_000_000_000
          + "s of waiting; Outboxer started");
    } catch (Exception e) {
      if (stopping) {
        return;
      }
      if (DatabaseUnreachable.is(e)) {
        Duration next = delay.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : delay.multipliedBy(2);
        notStarted("waiting for the database (" + dataSources.describe() + "): " + DatabaseUnreachable.describe(e));
        LOG.log(Level.FINE, "Outboxer still waits for the database; next try in " + next.toSeconds() + "s", e);
        scheduleRetry(next);
        return;
      }
      notStarted("failed to start once the database answered: " + e.getMessage());
      LOG.log(Level.SEVERE, "Outboxer could not start once the database answered: " + e + ". It stays not ready"
          + " (readiness check outbox-started is DOWN) and refuses to publish: fix the cause and restart the node.", e);
    } catch (LinkageError e) {
      notStarted("failed to start once the database answered: " + e);
      LOG.log(Level.SEVERE, "Outboxer could not start once the database answered: " + e + ". It stays not ready:"
          + " fix the cause and restart the node.", e);
    }
  }

  /** Detects the database, checks the schema, brings the rules in line, sets the limits, starts the workers. */
  private void startUp() throws Exception {
    Dialect dialect = database.dialect();
    String schemaState = schema.prepare(configuration.schema());
    long databasePayloadLimit = databasePayloadLimit(dialect);
    Map<String, int[]> layouts = new HashMap<>();
    for (OutboxSettings settings : configuration.outboxes().values()) {
      RulesStore.Layout layout = synchronizeRules(settings);
      layouts.put(settings.name(), new int[] {layout.partitionCount(), layout.layoutVersion()});
      limits.set(settings.name(), limits(settings, dialect, databasePayloadLimit));
    }
    // The workers refresh the counts behind the gauges: a publish-only node would report zeros.
    if (configuration.workerMode() != WorkerMode.NONE && !gaugesRegistered) {
      for (OutboxSettings settings : configuration.outboxes().values()) {
        metrics.registerGauges(settings.name(), () -> backlog.latest(settings.name()));
      }
      gaugesRegistered = true;
    }
    workers.start(layouts);
    if (configuration.workerMode() != WorkerMode.NONE) {
      wakeUp.listen();
    }
    for (OutboxSettings settings : configuration.outboxes().values()) {
      int[] layout = layouts.get(settings.name());
      LOG.info("Outbox '" + settings.name() + "': relay " + settings.relay() + ", ordering "
          + settings.ordering().configValue() + ", " + layout[0] + " partition(s) in force"
          + (layout[0] != settings.partitions() ? " (configured: " + settings.partitions() + ")" : "")
          + ", workers " + configuration.workerMode().configValue() + ", max-attempts "
          + (settings.unlimitedAttempts() ? "infinity" : settings.maxAttempts()) + ", database "
          + dialect.configValue() + ", schema " + schemaState);
    }
    ready = !stopping;
  }

  void onStop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object event) {
    stop();
  }

  /** Stops the workers and the wake-ups, and unregisters the metrics: what the application's shutdown does. */
  public void stop() {
    ready = false;
    synchronized (this) {
      stopping = true;
      if (retry != null) {
        retry.cancel(false);
      }
    }
    wakeUp.stop();
    workers.stop();
    metrics.unregister();
  }

  /** Whether start-up completed: schema checked, rules in line, workers started. */
  public boolean ready() {
    return ready;
  }

  /**
   * Why Outboxer is not ready, when it knows more than "not started": it waits for the database, or
   * failed once the database answered. Empty once started, and before and after its life cycle.
   */
  public java.util.Optional<String> notReadyReason() {
    return ready ? java.util.Optional.empty() : java.util.Optional.ofNullable(notStartedReason);
  }

  private MessageLimits.Limits limits(OutboxSettings settings, Dialect dialect, long databaseLimit) {
    MessageConstraints constraints = relays.constraintsFor(settings);
    long limit = databaseLimit;
    String source = dialect == Dialect.MARIADB
        ? "MariaDB's max_allowed_packet is " + mariaDbMaxAllowedPacket + " bytes, and a payload may take twice its size"
            + " in the statement: raise max_allowed_packet for larger ones"
        : "the largest payload " + dialect.configValue() + " takes";
    if (constraints.maxPayloadBytes() < limit) {
      limit = constraints.maxPayloadBytes();
      source = "the largest message the " + settings.relay() + " relay's destination takes";
    }
    if (settings.maxPayloadSize() < limit) {
      limit = settings.maxPayloadSize();
      source = settings.key(CoreSettings.MAX_PAYLOAD_SIZE);
    } else if (settings.maxPayloadSize() != Long.MAX_VALUE && settings.maxPayloadSize() > limit) {
      throw new OutboxConfigurationException(settings.key(CoreSettings.MAX_PAYLOAD_SIZE), settings.key(
          CoreSettings.MAX_PAYLOAD_SIZE) + "=" + settings.maxPayloadSize() + " bytes is more than " + source + " ("
          + limit + " bytes): lower it" + (dialect == Dialect.MARIADB ? ", or raise max_allowed_packet" : ""));
    }
    return new MessageLimits.Limits(constraints, limit, source);
  }

  private volatile long mariaDbMaxAllowedPacket;

  private long databasePayloadLimit(Dialect dialect) throws Exception {
    return switch (dialect) {
      case POSTGRESQL -> POSTGRESQL_MAX_PAYLOAD;
      case H2 -> H2_MAX_PAYLOAD;
      case SQLITE -> SQLITE_MAX_PAYLOAD;
      case MARIADB -> transactions.inNewTransaction(Duration.ofSeconds(30), () -> jdbc.call(connection -> {
        try (PreparedStatement statement = connection.prepareStatement("SELECT @@max_allowed_packet");
            ResultSet rows = statement.executeQuery()) {
          rows.next();
          mariaDbMaxAllowedPacket = rows.getLong(1);
          // The driver sends statements as text, with bytes such as quotes and backslashes escaped: a payload can
          // take up to twice its size in the packet.
          return Math.max(1024, (rows.getLong(1) - MARIADB_PACKET_ROOM) / 2);
        }
      }));
    };
  }

  /** Nodes starting together may both insert the rules row; the loser retries and then finds it. */
  private RulesStore.Layout synchronizeRules(OutboxSettings settings) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return transactions.inNewTransaction(Duration.ofSeconds(60), () -> jdbc.call(connection ->
            rules.synchronize(connection, settings, time.nowUtc(), configuration.nodeId())));
      } catch (OutboxConfigurationException refused) {
        throw refused;
      } catch (Exception e) {
        if (attempt == RULES_ATTEMPTS) {
          RulesStore.Layout inForce = transactions.inNewTransaction(Duration.ofSeconds(30),
              () -> jdbc.call(connection -> rules.layout(connection, settings.name())));
          if (inForce == null) {
            throw e;
          }
          LOG.log(Level.SEVERE, "Outbox '" + settings.name() + "': could not apply " + settings.key(CoreSettings.PARTITIONS)
              + "=" + settings.partitions() + " (" + e + "): the rules stayed locked, probably by long-running"
              + " transactions. This node runs with the " + inForce.partitionCount() + " partition(s) in force;"
              + " restart it to try the change again.", e);
          return inForce;
        }
        LOG.log(Level.FINE, "Synchronising the rules of outbox '" + settings.name() + "' failed; trying again", e);
      }
    }
  }
}
