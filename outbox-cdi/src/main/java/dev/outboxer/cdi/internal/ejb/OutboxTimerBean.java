package dev.outboxer.cdi.internal.ejb;

import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.config.WorkerMode;
import dev.outboxer.cdi.internal.work.Workers;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Drives the partition workers from the EJB timer service when {@code outbox.worker=ejb-timer}; in
 * any other mode it starts and does nothing. Bean-managed transactions: each batch begins and
 * commits its own. Bean-managed concurrency: wake-ups must not wait for a running tick.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class OutboxTimerBean {

  private static final Logger LOG = Logger.getLogger(OutboxTimerBean.class.getName());

  @Resource TimerService timers;
  @Resource SessionContext context;
  @Inject OutboxConfiguration configuration;
  @Inject Workers workers;

  private final AtomicBoolean wakePending = new AtomicBoolean();

  @PostConstruct
  void start() {
    if (configuration.workerMode() != WorkerMode.EJB_TIMER || configuration.outboxes().isEmpty()) {
      return;
    }
    long tick = configuration.outboxes().values().stream().map(OutboxSettings::pollInterval)
        .min(Duration::compareTo).orElseThrow().toMillis();
    timers.createIntervalTimer(tick, tick, new TimerConfig("outboxer-tick", false));
    OutboxTimerBean self = context.getBusinessObject(OutboxTimerBean.class);
    workers.onTimerWake(() -> {
      if (wakePending.compareAndSet(false, true)) {
        self.wakeSoon();
      }
    });
    LOG.info("Outboxer: partition workers driven by the EJB timer service, ticking every " + tick + "ms");
  }

  /** Asks for a tick now: a wake-up after a publish committed. */
  public void wakeSoon() {
    timers.createSingleActionTimer(1, new TimerConfig("outboxer-wake", false));
  }

  @Timeout
  void onTimeout(Timer timer) {
    wakePending.set(false);
    workers.tick();
  }

  @PreDestroy
  void stop() {
    for (Timer timer : timers.getTimers()) {
      try {
        timer.cancel();
      } catch (RuntimeException alreadyGone) {
        // The timer fired or was cancelled meanwhile.
      }
    }
  }
}
