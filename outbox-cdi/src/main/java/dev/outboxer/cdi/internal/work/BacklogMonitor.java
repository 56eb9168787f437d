package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.admin.CountsQuery;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.tx.Transactions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps recent counts of every outbox for the gauges, refreshed by the workers' scheduler every
 * {@code outbox.metrics.refresh-interval}: a metrics scrape reads memory, never the database, so a
 * large backlog costs one counting query per interval whatever the scrape rate.
 */
@ApplicationScoped
public class BacklogMonitor {

  private static final Logger LOG = Logger.getLogger(BacklogMonitor.class.getName());

  @Inject OutboxConfiguration configuration;
  @Inject Transactions transactions;
  @Inject EntityManagerLookup entityManagers;
  @Inject CountsQuery counts;

  private final Map<String, OutboxCounts> latest = new ConcurrentHashMap<>();

  public OutboxCounts latest(String outbox) {
    return latest.getOrDefault(outbox, new OutboxCounts(0, 0, 0, Duration.ZERO));
  }

  void refresh() {
    for (String outbox : configuration.outboxes().keySet()) {
      try {
        latest.put(outbox, transactions.inNewTransaction(Duration.ofSeconds(30),
            () -> counts.counts(entityManagers.entityManager(), outbox)));
      } catch (Exception e) {
        LOG.log(Level.FINE, "Refreshing the counts of outbox '" + outbox + "' failed; the gauges keep the last ones", e);
      }
    }
  }
}
