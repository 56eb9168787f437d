package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.config.WorkerMode;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * This node's partition workers: one per partition of every outbox, started and stopped with the
 * application, scheduled on a ManagedScheduledExecutorService (or a plain pool in Java SE) or by
 * EJB timer ticks, as {@code outbox.worker} says.
 */
@ApplicationScoped
public class Workers {

  private static final Logger LOG = Logger.getLogger(Workers.class.getName());
  private static final int MAX_OWN_THREADS = 16;

  @Inject OutboxConfiguration configuration;
  @Inject BatchProcessor processor;
  @Inject OutboxMetrics metrics;
  @Inject TimeSource time;
  @Inject Relays relays;
  @Inject BacklogMonitor backlog;

  private final Map<String, List<ScheduledWorker>> scheduled = new ConcurrentHashMap<>();
  private volatile TimerDrivenWorkers timerDriven;
  private volatile Runnable timerWake = () -> {};
  private volatile boolean stopping;
  private volatile boolean started;
  private ScheduledExecutorService ownExecutor;
  private ScheduledFuture<?> backlogRefresh;
  private long lastBacklogRefresh;

  synchronized void start() {
    if (started) {
      return;
    }
    WorkerMode mode = configuration.workerMode();
    if (mode == WorkerMode.NONE || configuration.outboxes().isEmpty()) {
      LOG.info("Outboxer: no partition workers on this node (" + ConfigKeys.WORKER + "=" + mode.configValue() + ")");
      started = true;
      return;
    }
    List<PartitionWorker> workers = new ArrayList<>();
    for (OutboxSettings settings : configuration.outboxes().values()) {
      var relay = relays.relayFor(settings);
      for (int partition = 0; partition < settings.partitions(); partition++) {
        workers.add(new PartitionWorker(settings, partition, relay, processor, metrics, time));
      }
    }
    if (mode == WorkerMode.EJB_TIMER) {
      TimerDrivenWorkers driven = new TimerDrivenWorkers(workers);
      driven.onWake(() -> timerWake.run());
      timerDriven = driven;
    } else {
      ScheduledExecutorService executor = executor(workers.size());
      for (PartitionWorker worker : workers) {
        ScheduledWorker driver = new ScheduledWorker(worker, executor);
        scheduled.computeIfAbsent(worker.outbox(), outbox -> new ArrayList<>()).add(driver);
        driver.start();
      }
      long refresh = configuration.metricsRefresh().toMillis();
      backlogRefresh = executor.scheduleWithFixedDelay(backlog::refresh, 0, refresh, TimeUnit.MILLISECONDS);
    }
    started = true;
    LOG.info("Outboxer: " + workers.size() + " partition worker(s) started (" + ConfigKeys.WORKER + "="
        + mode.configValue() + ")");
  }

  /** Wakes the worker of a partition on this node, after a publish committed there. */
  public void wake(String outbox, int partition) {
    List<ScheduledWorker> workers = scheduled.get(outbox);
    if (workers != null && partition < workers.size()) {
      workers.get(partition).wake();
    }
    TimerDrivenWorkers driven = timerDriven;
    if (driven != null) {
      driven.wake(outbox, partition);
    }
  }

  /** Wakes every worker of an outbox on this node (after a revival, a discard, or a test's clock step). */
  public void wakeAll(String outbox) {
    List<ScheduledWorker> workers = scheduled.get(outbox);
    if (workers != null) {
      workers.forEach(ScheduledWorker::wake);
    }
    TimerDrivenWorkers driven = timerDriven;
    if (driven != null) {
      driven.wake(outbox, -1);
    }
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
      backlog.refresh();
    }
  }

  /** Stops scheduling and waits for running batches, each bounded by its relay timeout, so that no thread outlives the application. */
  synchronized void stop() {
    stopping = true;
    if (backlogRefresh != null) {
      backlogRefresh.cancel(false);
    }
    Duration grace = configuration.outboxes().values().stream().map(OutboxSettings::relayTimeout)
        .max(Duration::compareTo).orElse(Duration.ZERO).plusSeconds(5);
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      for (List<ScheduledWorker> workers : scheduled.values()) {
        for (ScheduledWorker worker : workers) {
          if (!worker.stop(deadline)) {
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
    scheduled.clear();
    timerDriven = null;
    if (ownExecutor != null) {
      ownExecutor.shutdownNow();
      ownExecutor = null;
    }
    relays.closeAll();
    processor.shutdown();
  }

  private ScheduledExecutorService executor(int workerCount) {
    String name = configuration.workerExecutor().orElse(ConfigKeys.DEFAULT_WORKER_EXECUTOR);
    try {
      Object found = new InitialContext().lookup(name);
      if (found instanceof ScheduledExecutorService executor) {
        return executor;
      }
      throw new OutboxConfigurationException(ConfigKeys.WORKER_EXECUTOR, ConfigKeys.WORKER_EXECUTOR + "=" + name
          + " is a " + found.getClass().getName() + ", not a ManagedScheduledExecutorService");
    } catch (NamingException e) {
      if (configuration.workerExecutor().isPresent()) {
        throw new OutboxConfigurationException(ConfigKeys.WORKER_EXECUTOR, ConfigKeys.WORKER_EXECUTOR + "=" + name
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
