package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.config.WorkerMode;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.store.Database;
import dev.outboxer.cdi.internal.store.RulesStore;
import dev.outboxer.cdi.internal.tx.Transactions;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts Outboxer with the application, before the application's own start-up observers: detects
 * the database, brings each outbox's persisted rules in line with its configuration (refusing a
 * partition change on a live backlog), registers the metrics and starts this node's workers. Stops
 * the workers before the application's beans go away.
 */
@ApplicationScoped
public class OutboxRuntime {

  private static final Logger LOG = Logger.getLogger(OutboxRuntime.class.getName());
  private static final int RULES_ATTEMPTS = 3;

  @Inject OutboxConfiguration configuration;
  @Inject Database database;
  @Inject RulesStore rules;
  @Inject Transactions transactions;
  @Inject EntityManagerLookup entityManagers;
  @Inject TimeSource time;
  @Inject Workers workers;
  @Inject OutboxMetrics metrics;
  @Inject BacklogMonitor backlog;

  void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) @Initialized(ApplicationScoped.class) Object event)
      throws Exception {
    if (configuration.outboxes().isEmpty()) {
      LOG.info("Outboxer: no outbox is configured (outbox.<name>.relay); nothing to start");
      return;
    }
    database.dialect();
    for (OutboxSettings settings : configuration.outboxes().values()) {
      synchronizeRules(settings);
      // The workers refresh the counts behind the gauges: a publish-only node would report zeros.
      if (configuration.workerMode() != WorkerMode.NONE) {
        metrics.registerGauges(settings.name(), () -> backlog.latest(settings.name()));
      }
    }
    workers.start();
  }

  void onStop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object event) {
    workers.stop();
    metrics.unregister();
  }

  /** Nodes starting together may both insert the rules row; the loser retries and then finds it. */
  private void synchronizeRules(OutboxSettings settings) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        transactions.inNewTransaction(Duration.ofSeconds(60), () -> {
          rules.synchronize(entityManagers.entityManager(), settings, time.nowUtc(), configuration.nodeId());
          return null;
        });
        return;
      } catch (OutboxConfigurationException refused) {
        throw refused;
      } catch (Exception e) {
        if (attempt == RULES_ATTEMPTS) {
          throw e;
        }
        LOG.log(Level.FINE, "Synchronising the rules of outbox '" + settings.name() + "' failed; trying again", e);
      }
    }
  }
}
