package dev.outboxer.inbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * {@code outbox.inbox.retention}: forgets the ids the inbox accepted longer ago than the retention,
 * as {@link Inbox#purge} does, but a chunk at a time, one node at a time, for {@link InboxProducer}'s
 * schedule.
 *
 * <p>Each chunk is a local transaction of its own on a connection of the data source (never a JTA
 * transaction, and never the consumer's): it tries the inbox's retention lock without waiting
 * ({@link InboxDialect#tryRetentionLock}) and ends the run if another node holds it; then it removes
 * up to {@code chunkSize} rows of one table, by primary key where the database allows it, each only if
 * still older than the cut-off. A consumer's accept waits at most for one chunk's deletes, and only
 * for a row of its own group that is being removed.
 *
 * <p>What it does not guarantee: that one node does a whole run (another can take the lock between
 * two chunks); what forgetting means is {@link Inbox#purge}'s: a copy of a forgotten message is
 * accepted again.
 */
final class InboxRetention {

  private static final Logger LOG = Logger.getLogger(InboxRetention.class.getName());

  /**
   * What one run did.
   *
   * @param removed rows removed by the committed chunks, of both tables
   * @param chunks chunks that removed something
   * @param lockedOut whether the run ended because another node held the retention lock
   */
  record Run(int removed, int chunks, boolean lockedOut) {}

  private final DataSource dataSource;
  private final InboxDialect dialect;
  private final Clock clock;
  private final Duration retention;
  private final int chunkSize;

  InboxRetention(DataSource dataSource, InboxDialect dialect, Clock clock, Duration retention, int chunkSize) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.clock = clock;
    this.retention = retention;
    this.chunkSize = chunkSize;
  }

  Duration retention() {
    return retention;
  }

  /** One run now. */
  Run run() {
    return run(() -> false);
  }

  /**
   * One run: every table a chunk a transaction until a chunk finds less than a full one. Logs the
   * count at INFO when it removed anything (FINE otherwise).
   *
   * @param stopping true once the application stops: the run ends after its current chunk
   * @throws InboxException a chunk's failure; the chunks before it stay committed
   */
  Run run(BooleanSupplier stopping) {
    LocalDateTime before = LocalDateTime.ofInstant(clock.instant().minus(retention), ZoneOffset.UTC)
        .truncatedTo(ChronoUnit.MICROS);
    int removed = 0;
    int chunks = 0;
    boolean lockedOut = false;
    tables:
    for (Map.Entry<String, java.util.Set<String>> table : InboxSchema.KEYS.entrySet()) {
      List<String> keyColumns = InboxSchema.TABLES.get(table.getKey()).stream()
          .filter(table.getValue()::contains).toList();
      while (!stopping.getAsBoolean()) {
        Integer chunk = chunk(table.getKey(), keyColumns, before);
        if (chunk == null) {
          lockedOut = true;
          break tables;
        }
        if (chunk > 0) {
          removed += chunk;
          chunks++;
        }
        if (chunk < chunkSize) {
          break;
        }
      }
    }
    LOG.log(removed > 0 ? Level.INFO : Level.FINE, "Inbox: outbox.inbox.retention="
        + dev.outboxer.spi.Setting.formatDuration(retention) + " forgot " + removed + " accepted id(s) processed"
        + " before " + before + " UTC, in " + chunks + " chunk(s)"
        + (lockedOut ? "; another node holds the retention lock and does the rest" : ""));
    return new Run(removed, chunks, lockedOut);
  }

  /** One chunk of one table in a local transaction; null if another node holds the lock. */
  private Integer chunk(String table, List<String> keyColumns, LocalDateTime before) {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        Integer removed = null;
        if (dialect.tryRetentionLock(connection)) {
          try {
            removed = dialect.deleteProcessedBefore(connection, table, keyColumns, before, chunkSize);
          } finally {
            dialect.releaseRetentionLock(connection);
          }
        }
        connection.commit();
        return removed;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new InboxException("The inbox's retention could not forget the ids of " + table + " processed before "
          + before + " UTC: " + e.getMessage() + " (SQLState " + e.getSQLState() + "); the chunks before are"
          + " committed, the next run goes on", e);
    }
  }
}
