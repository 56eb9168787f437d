package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.config.WorkerMode;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.store.Database;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.PlatformExecutor;
import dev.outboxer.spi.Relay;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.naming.NoInitialContextException;

/**
 * This node's partition workers: one per partition in force of every outbox, started and stopped
 * with the application, scheduled on a ManagedScheduledExecutorService (or the platform's {@link
 * PlatformExecutor} in Quarkus, or a plain pool in Java SE) or by EJB timer ticks, as {@code
 * outbox.worker} says.
 *
 * <p>The partitions in force are the cluster's, read from the database at every claim, not this
 * node's configuration: when another node changes the count, this node starts and stops workers to
 * match and says so at WARNING. A supervisor restarts a worker whose schedule broke, and replaces
 * one whose run hangs past its lease.
 */
@ApplicationScoped
public class Workers implements PartitionWorker.LayoutListener {

  private static final Logger LOG = Logger.getLogger(Workers.class.getName());
  private static final int MAX_OWN_THREADS = 16;
  private static final Duration SUPERVISION_INTERVAL = Duration.ofSeconds(1);
  /**
   * How often the scheduler asks whether an outbox's dead-retention is due: its {@code
   * retention-interval} is measured on Outboxer's clock ({@link TimeSource}), so tests step it.
   */
  private static final Duration RETENTION_CHECK = Duration.ofSeconds(1);

  @Inject OutboxConfiguration configuration;
  @Inject BatchProcessor processor;
  @Inject OutboxMetrics metrics;
  @Inject TimeSource time;
  @Inject Relays relays;
  @Inject dev.outboxer.cdi.internal.jdbc.Jdbc jdbc;
  @Inject dev.outboxer.cdi.internal.jdbc.DataSourceLookup dataSources;
  @Inject dev.outboxer.cdi.internal.tx.TwoPhaseCommitCheck twoPhaseCommit;
  @Inject BacklogMonitor backlog;
  @Inject DeadMessageRetention retention;
  @Inject Database database;
  @Inject jakarta.enterprise.inject.Instance<jakarta.enterprise.concurrent.ManagedScheduledExecutorService>
      managedExecutors;
  @Inject @PlatformExecutor jakarta.enterprise.inject.Instance<ScheduledExecutorService> platformExecutors;

  /** Per outbox, its workers on this node by partition. */
  private final Map<String, OutboxWorkers> outboxes = new ConcurrentHashMap<>();
  private volatile TimerDrivenWorkers timerDriven;
  private volatile Runnable timerWake = () -> {};
  private volatile boolean stopping;
  private volatile boolean started;
  private ScheduledExecutorService executor;
  private ScheduledExecutorService ownExecutor;
  private ScheduledExecutorService supervisor;
  private ScheduledFuture<?> backlogRefresh;
  private ScheduledFuture<?> retentionRuns;
  private volatile long lastBacklogRefresh;

  /** The workers of one outbox and the layout they follow. */
  private final class OutboxWorkers {
    final OutboxSettings settings;
    final Relay relay;
    final boolean plainTransactions;
    final Map<Integer, Slot> slots = new ConcurrentHashMap<>();
    int partitionCount;
    int layoutVersion;

    OutboxWorkers(OutboxSettings settings, Relay relay, boolean plainTransactions) {
      this.settings = settings;
      this.relay = relay;
      this.plainTransactions = plainTransactions;
    }
  }

  /** One partition's worker and, in executor mode, what schedules it. */
  private record Slot(PartitionWorker worker, ScheduledWorker scheduled) {}

  /**
   * Starts the workers of every outbox for the partition layouts in force.
   *
   * @param layouts per outbox, the partition count and layout version in force in the database
   */
  synchronized void start(Map<String, int[]> layouts) {
    // Stopping: a start-up that waited for the database and finished during shutdown starts nothing.
    if (started || stopping) {
      return;
    }
    WorkerMode mode = configuration.workerMode();
    if (mode == WorkerMode.NONE || configuration.outboxes().isEmpty()) {
      LOG.info("Outboxer: no partition workers on this node (" + ConfigKeys.global(CoreSettings.WORKER) + "=" + mode.configValue() + ")");
      started = true;
      return;
    }
    int total = 0;
    for (OutboxSettings settings : configuration.outboxes().values()) {
      int[] layout = layouts.getOrDefault(settings.name(), new int[] {settings.partitions(), 0});
      Relay relay = relays.relayFor(settings);
      OutboxWorkers workers = new OutboxWorkers(settings, relay, plainTransactions(settings));
      workers.partitionCount = layout[0];
      workers.layoutVersion = layout[1];
      outboxes.put(settings.name(), workers);
      total += layout[0];
    }
    // Before the first batch: a database that cannot prepare would fail every batch of an enlisting relay.
    try {
      twoPhaseCommit.verify(relays.enlisting());
    } catch (RuntimeException refused) {
      relays.closeAll();
      throw refused;
    } catch (Exception failed) {
      relays.closeAll();
      throw new IllegalStateException("Outboxer could not check the outbox's database for two-phase commit: " + failed,
          failed);
    }
    if (mode == WorkerMode.EJB_TIMER) {
      TimerDrivenWorkers driven = new TimerDrivenWorkers();
      driven.onWake(() -> timerWake.run());
      timerDriven = driven;
    } else {
      if (executor == null) {
        executor = executor(total);
      }
      long refresh = configuration.metricsRefresh().toMillis();
      backlogRefresh = executor.scheduleWithFixedDelay(this::refreshBacklog, 0, refresh, TimeUnit.MILLISECONDS);
      if (anyRetention()) {
        // On the workers' pool, one run at a time: a long run delays the next check, never a partition's worker.
        retentionRuns = executor.scheduleWithFixedDelay(this::runRetention, 0, RETENTION_CHECK.toMillis(),
            TimeUnit.MILLISECONDS);
      }
      supervisor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "outboxer-supervisor");
        thread.setDaemon(true);
        return thread;
      });
      supervisor.scheduleWithFixedDelay(this::supervise, SUPERVISION_INTERVAL.toMillis(),
          SUPERVISION_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }
    for (OutboxWorkers workers : outboxes.values()) {
      for (int partition = 0; partition < workers.partitionCount; partition++) {
        startWorker(workers, partition);
      }
    }
    started = true;
    LOG.info("Outboxer: " + total + " partition worker(s) started (" + ConfigKeys.global(CoreSettings.WORKER) + "=" + mode.configValue()
        + ")");
  }

  /**
   * Whether an outbox's batches run in plain database transactions: its relay does not use the
   * worker's transaction, and Outboxer gets connections from a data source (through an
   * EntityManager there is no connection to be had outside a JTA transaction), and {@code
   * worker-transaction} is not {@code jta}. Said at INFO either way.
   */
  private boolean plainTransactions(OutboxSettings settings) {
    if (!relays.outsideWorkerTransaction(settings.name()) || settings.workerTransactionAlwaysJta()) {
      return false;
    }
    String relay = settings.key(CoreSettings.RELAY) + "=" + settings.relay();
    if (!jdbc.viaDataSource()) {
      LOG.info("Outbox '" + settings.name() + "': the relay (" + relay + ") does not use the worker's transaction, but"
          + " Outboxer reaches the database through " + dataSources.describe() + ", which gives no connection outside"
          + " a JTA transaction: its batches run in JTA transactions. Set " + ConfigKeys.global(CoreSettings.DATASOURCE)
          + " (the JNDI name of the data source) or produce an @OutboxPersistence DataSource to run them in plain"
          + " database transactions, without the transaction manager's round trips.");
      return false;
    }
    LOG.info("Outbox '" + settings.name() + "': the relay (" + relay + ") does not use the worker's transaction: its"
        + " batches run in plain database transactions on connections of " + dataSources.describe() + ", ended at "
        + settings.key(CoreSettings.TRANSACTION_TIMEOUT) + "=" + dev.outboxer.spi.Setting.formatDuration(
        settings.transactionTimeout()) + " (" + settings.key(CoreSettings.WORKER_TRANSACTION) + "=jta keeps them in"
        + " JTA transactions)");
    return true;
  }

  private void startWorker(OutboxWorkers workers, int partition) {
    PartitionCursor cursor = database.dialect().settledReads() ? PartitionCursor.settledReads()
        : PartitionCursor.disabled();
    PartitionWorker worker = new PartitionWorker(workers.settings, partition, workers.relay, workers.plainTransactions,
        processor, metrics, time, this, cursor, new PartitionActivity(workers.settings.name(), partition));
    TimerDrivenWorkers driven = timerDriven;
    if (driven != null) {
      driven.add(worker);
      workers.slots.put(partition, new Slot(worker, null));
    } else {
      ScheduledWorker scheduled = new ScheduledWorker(worker, executor);
      workers.slots.put(partition, new Slot(worker, scheduled));
      scheduled.start();
    }
  }

  private void stopWorker(OutboxWorkers workers, int partition) {
    Slot slot = workers.slots.remove(partition);
    if (slot == null) {
      return;
    }
    if (slot.scheduled() != null) {
      slot.scheduled().abandon();
    }
    TimerDrivenWorkers driven = timerDriven;
    if (driven != null) {
      driven.remove(slot.worker());
    }
  }

  /** A claim read the layout in force; follow it if another node changed it. */
  @Override
  public void observed(String outbox, int partition, int partitionCount, int layoutVersion) {
    OutboxWorkers workers = outboxes.get(outbox);
    if (workers == null || workers.layoutVersion == layoutVersion && workers.partitionCount == partitionCount) {
      return;
    }
    synchronized (this) {
      if (stopping || workers.layoutVersion == layoutVersion && workers.partitionCount == partitionCount) {
        return;
      }
      int before = workers.partitionCount;
      workers.partitionCount = partitionCount;
      workers.layoutVersion = layoutVersion;
      if (before != partitionCount) {
        String key = workers.settings.key(CoreSettings.PARTITIONS);
        LOG.warning("Outbox '" + outbox + "': the partition count in force changed from " + before + " to "
            + partitionCount + " (layout version " + layoutVersion + ", set by another node); this node follows it"
            + " and now runs " + partitionCount + " worker(s)." + (workers.settings.partitions() != partitionCount
            ? " Its own configuration says " + key + "=" + workers.settings.partitions() + ": set " + key + "="
            + partitionCount + " before it restarts, or it will change the count back when it starts." : ""));
      }
      for (int p = partitionCount; p < before; p++) {
        stopWorker(workers, p);
      }
      for (int p = 0; p < partitionCount; p++) {
        if (!workers.slots.containsKey(p)) {
          startWorker(workers, p);
        }
      }
    }
  }

  /** Wakes the worker of a partition on this node, after a publish committed there. */
  public void wake(String outbox, int partition) {
    OutboxWorkers workers = outboxes.get(outbox);
    if (workers != null) {
      Slot slot = workers.slots.get(partition);
      if (slot != null && slot.scheduled() != null) {
        slot.scheduled().wake();
      }
    }
    TimerDrivenWorkers driven = timerDriven;
    if (driven != null) {
      driven.wake(outbox, partition);
    }
  }

  /**
   * A transaction that published to this partition is about to commit: starts the partition's idle
   * executor-driven worker now, so that its claim overlaps the commit (see {@link CommitGate}).
   * PostgreSQL only, where every statement of the worker's transaction reads what committed before
   * it. Null when nothing was started; the caller then wakes the worker after the commit as usual.
   */
  public CommitGate prime(String outbox, int partition) {
    if (database.dialect() != dev.outboxer.cdi.internal.store.Dialect.POSTGRESQL) {
      return null;
    }
    OutboxWorkers workers = outboxes.get(outbox);
    Slot slot = workers == null ? null : workers.slots.get(partition);
    return slot == null || slot.scheduled() == null ? null : slot.scheduled().prime();
  }

  /** Wakes every worker of an outbox on this node (after a revival, a discard, or a test's clock step). */
  public void wakeAll(String outbox) {
    OutboxWorkers workers = outboxes.get(outbox);
    if (workers != null) {
      workers.slots.values().forEach(slot -> {
        if (slot.scheduled() != null) {
          slot.scheduled().wake();
        }
      });
    }
    TimerDrivenWorkers driven = timerDriven;
    if (driven != null) {
      driven.wake(outbox, -1);
    }
  }

  /** What this node's workers did last, per outbox and partition (for health checks and operators). */
  public List<PartitionActivity> activities() {
    List<PartitionActivity> all = new ArrayList<>();
    outboxes.values().forEach(workers -> workers.slots.values().forEach(slot -> all.add(slot.worker().activity())));
    return all;
  }

  /** The partition count this node's workers follow, if it runs workers for the outbox. */
  public Optional<Integer> partitionsInForce(String outbox) {
    OutboxWorkers workers = outboxes.get(outbox);
    return workers == null ? Optional.empty() : Optional.of(workers.partitionCount);
  }

  /** Whether the workers were started (or this node runs none). */
  public boolean started() {
    return started;
  }

  /** For the EJB timer bean: how to get a tick soon. */
  public void onTimerWake(Runnable wake) {
    this.timerWake = wake;
  }

  /** For the EJB timer bean: one tick. Does nothing before start or in another mode. */
  public void tick() {
    TimerDrivenWorkers driven = timerDriven;
    if (driven == null || stopping) {
      return;
    }
    driven.tick(() -> stopping);
    long now = System.nanoTime();
    if (now - lastBacklogRefresh > configuration.metricsRefresh().toNanos()) {
      lastBacklogRefresh = now;
      refreshBacklog();
    }
    if (anyRetention()) {
      runRetention();
    }
  }

  private boolean anyRetention() {
    return configuration.outboxes().values().stream().anyMatch(settings -> settings.deadRetention() != null);
  }

  private void runRetention() {
    if (stopping) {
      return;
    }
    try {
      retention.runDue(() -> stopping);
    } catch (RuntimeException | LinkageError e) {
      LOG.log(Level.WARNING, "Outboxer's dead-retention failed; it is tried again at the next interval", e);
    }
  }

  private void refreshBacklog() {
    try {
      backlog.refresh();
    } catch (RuntimeException | LinkageError e) {
      LOG.log(Level.FINE, "Refreshing the backlog gauges failed", e);
    }
  }

  /** Restarts workers whose schedule broke and replaces workers whose run hangs past their lease. */
  private void supervise() {
    try {
      for (OutboxWorkers workers : outboxes.values()) {
        OutboxSettings settings = workers.settings;
        Duration overdueAfter = settings.maxPollInterval().multipliedBy(3).plusSeconds(1);
        Duration stuckAfter = settings.transactionTimeout().plus(settings.relayTimeout()).plusSeconds(5);
        for (Map.Entry<Integer, Slot> entry : workers.slots.entrySet()) {
          ScheduledWorker scheduled = entry.getValue().scheduled();
          if (scheduled == null || stopping) {
            continue;
          }
          if (scheduled.supervise(overdueAfter, stuckAfter) == ScheduledWorker.Health.STUCK) {
            synchronized (this) {
              if (stopping || workers.slots.get(entry.getKey()) != entry.getValue()) {
                continue;
              }
              LOG.warning("Outbox '" + settings.name() + "', partition " + entry.getKey() + ": the worker's run has"
                  + " lasted " + scheduled.worker().activity().currentRunNanos() / 1_000_000 + "ms, past its"
                  + " transaction timeout: its relay hangs. Its claim has lapsed; a new worker takes over the"
                  + " partition and the hanging thread is left behind");
              stopWorker(workers, entry.getKey());
              startWorker(workers, entry.getKey());
            }
          }
        }
      }
    } catch (RuntimeException | LinkageError e) {
      LOG.log(Level.WARNING, "Outboxer's worker supervisor failed; it runs again in " + SUPERVISION_INTERVAL.toSeconds()
          + "s", e);
    }
  }

  /**
   * The executor the workers run on (the ManagedScheduledExecutorService, or this node's own pool in
   * Java SE), for Outboxer's start-up when it has to wait for the database: the first lookup
   * decides it for the workers too.
   */
  synchronized ScheduledExecutorService startUpExecutor() {
    if (executor == null) {
      int configured = configuration.outboxes().values().stream().mapToInt(OutboxSettings::partitions).sum();
      executor = executor(Math.max(1, configured));
    }
    return executor;
  }

  /** Stops scheduling and waits for running batches, each bounded by its relay timeout, so that no thread outlives the application. */
  synchronized void stop() {
    stopping = true;
    if (backlogRefresh != null) {
      backlogRefresh.cancel(false);
    }
    if (retentionRuns != null) {
      retentionRuns.cancel(false);
    }
    if (supervisor != null) {
      supervisor.shutdownNow();
    }
    Duration grace = configuration.outboxes().values().stream().map(OutboxSettings::relayTimeout)
        .max(Duration::compareTo).orElse(Duration.ZERO).plusSeconds(5);
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      for (OutboxWorkers workers : outboxes.values()) {
        for (Slot slot : workers.slots.values()) {
          if (slot.scheduled() != null && !slot.scheduled().stop(deadline)) {
            LOG.warning("Outboxer: a partition worker was still relaying after " + grace.toSeconds() + "s at shutdown;"
                + " its transaction will time out and the batch will be delivered again");
          }
        }
      }
      TimerDrivenWorkers driven = timerDriven;
      while (driven != null && driven.isTicking() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    outboxes.clear();
    timerDriven = null;
    if (ownExecutor != null) {
      ownExecutor.shutdownNow();
      ownExecutor = null;
    }
    executor = null;
    relays.closeAll();
    processor.shutdown();
  }

  private ScheduledExecutorService executor(int workerCount) {
    if (configuration.workerExecutor().isEmpty() && managedExecutors.isResolvable()) {
      // Java SE with a container that provides one as a CDI bean (and tests that inject faults into it).
      return managedExecutors.get();
    }
    if (configuration.workerExecutor().isEmpty() && platformExecutors.isResolvable()) {
      // A platform without Jakarta Concurrency that offers its own managed pool (Quarkus).
      LOG.info("Outboxer: the workers run on the platform's executor");
      return platformExecutors.get();
    }
    String name = configuration.workerExecutor().orElse(CoreSettings.WORKER_EXECUTOR.defaultValue().orElseThrow());
    try {
      Object found = new InitialContext().lookup(name);
      if (found instanceof ScheduledExecutorService managed) {
        return managed;
      }
      throw new OutboxConfigurationException(ConfigKeys.global(CoreSettings.WORKER_EXECUTOR), ConfigKeys.global(CoreSettings.WORKER_EXECUTOR) + "=" + name
          + " is a " + found.getClass().getName() + ", not a ManagedScheduledExecutorService");
    } catch (NamingException e) {
      if (configuration.workerExecutor().isPresent()) {
        throw new OutboxConfigurationException(ConfigKeys.global(CoreSettings.WORKER_EXECUTOR), ConfigKeys.global(CoreSettings.WORKER_EXECUTOR) + "=" + name
            + " could not be looked up: " + e);
      }
      int threads = configuration.workerThreads() > 0 ? configuration.workerThreads()
          : Math.min(MAX_OWN_THREADS, workerCount + 1);
      Level level = e instanceof NoInitialContextException ? Level.INFO : Level.WARNING;
      LOG.log(level, "Outboxer: no ManagedScheduledExecutorService at " + name + " (" + e.getClass().getSimpleName()
          + "); the workers run on a plain pool of " + threads + " daemon thread(s). That is right in Java SE; in an"
          + " application server, enable Jakarta Concurrency.");
      AtomicInteger counter = new AtomicInteger();
      ownExecutor = Executors.newScheduledThreadPool(threads, runnable -> {
        Thread thread = new Thread(runnable, "outboxer-worker-" + counter.incrementAndGet());
        thread.setDaemon(true);
        return thread;
      });
      return ownExecutor;
    }
  }
}
