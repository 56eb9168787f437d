package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.store.AdminStatements;
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
 * {@code outbox.metrics.refresh-interval}: a metrics scrape reads memory, never the database. The
 * count walks the whole backlog, so on a large one the refresh backs off: it never spends more than
 * a twentieth of the time counting.
 */
@ApplicationScoped
public class BacklogMonitor {

  private static final Logger LOG = Logger.getLogger(BacklogMonitor.class.getName());
  private static final int MAX_SHARE = 20;

  @Inject OutboxConfiguration configuration;
  @Inject Transactions transactions;
  @Inject Jdbc jdbc;
  @Inject AdminStatements statements;
  @Inject TimeSource time;

  private final Map<String, OutboxCounts> latest = new ConcurrentHashMap<>();
  private volatile long notBeforeNanos;

  public OutboxCounts latest(String outbox) {
    return latest.getOrDefault(outbox, new OutboxCounts(0, 0, 0, Duration.ZERO));
  }

  void refresh() {
    long started = System.nanoTime();
    if (started - notBeforeNanos < 0) {
      return;
    }
    for (String outbox : configuration.outboxes().keySet()) {
      try {
        latest.put(outbox, transactions.inNewTransaction(Duration.ofSeconds(60),
            () -> jdbc.call(connection -> statements.counts(connection, outbox, time.nowUtc()))));
      } catch (Exception e) {
        LOG.log(Level.FINE, "Refreshing the counts of outbox '" + outbox + "' failed; the gauges keep the last ones", e);
      }
    }
    notBeforeNanos = System.nanoTime() + (System.nanoTime() - started) * MAX_SHARE;
  }
}
