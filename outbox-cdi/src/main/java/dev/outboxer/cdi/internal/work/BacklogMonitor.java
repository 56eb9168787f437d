package dev.outboxer.cdi.internal.work;

import dev.outboxer.OpenTransaction;
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
 * a twentieth of the time counting. On PostgreSQL the same refresh reads how long the oldest
 * transaction open on another session of the database has been open (one query of {@code
 * pg_stat_activity}): such a transaction slows draining down until it ends (see {@link
 * LongTransactionWarnings}).
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
  private volatile Duration oldestTransactionAge = Duration.ZERO;

  public OutboxCounts latest(String outbox) {
    return latest.getOrDefault(outbox, new OutboxCounts(0, 0, 0, Duration.ZERO));
  }

  /** How long the oldest transaction of another session had been open at the last refresh; zero if none, or not PostgreSQL. */
  public Duration oldestTransactionAge() {
    return oldestTransactionAge;
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
    try {
      oldestTransactionAge = transactions.inNewTransaction(Duration.ofSeconds(60), () -> jdbc.call(connection ->
          statements.oldestOpenTransaction(connection).map(OpenTransaction::age).orElse(Duration.ZERO)));
    } catch (Exception e) {
      LOG.log(Level.FINE, "Reading the oldest open transaction failed; the gauge keeps the last age", e);
    }
    notBeforeNanos = System.nanoTime() + (System.nanoTime() - started) * MAX_SHARE;
  }
}
