package dev.outboxer.cdi.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import dev.outboxer.OpenTransaction;
import java.time.Duration;
import java.util.Optional;

/**
 * PostgreSQL: the oldest transaction still open in this database on another connection, as {@code
 * pg_stat_activity} shows it to the application's user (other users' sessions show no query).
 * Asked by a worker only when its probe already found one open for long (see {@code
 * LongTransactionWarnings}), never per batch; by the gauges' refresh ({@code BacklogMonitor}) and
 * {@code OutboxAdmin.oldestOpenTransaction} when they are asked.
 */
public final class OpenTransactions {

  /**
   * The {@code pg_stat_activity} rows of transactions open on other sessions of this database. An
   * {@code idle} session is not in a transaction of its own, even where the row shows a {@code
   * xact_start}: the server then runs a short transaction for it (it delivers notifications to a
   * {@code LISTEN}ing session, such as the cross-node wake-up's, reading them from the queue), and
   * dates that transaction from the session's last statement, which may be hours old; a client slow
   * to read its notifications keeps it there. Such a transaction writes no outbox rows. Only client
   * sessions count: autovacuum's workers do not hold the rows the workers delete. The workers'
   * probe of running transactions ({@code PostgresBatchSql}) still counts it: a soak with this filter
   * in the probe lost 7 of 6.4 million messages (cause not found yet), so the probe keeps its
   * conservative reading until that is understood; it then only holds the read position back longer.
   */
  public static final String OTHER_SESSIONS_IN_TRANSACTION = "datname = current_database() AND pid <> pg_backend_pid()"
      + " AND xact_start IS NOT NULL AND state IS DISTINCT FROM 'idle' AND backend_type = 'client backend'";

  private OpenTransactions() {}

  public static Optional<OpenTransaction> oldest(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT pid, usename, application_name,"
        + " COALESCE(host(client_addr), 'local'), state, xact_start, EXTRACT(EPOCH FROM clock_timestamp() - xact_start),"
        + " left(query, 200) FROM pg_stat_activity WHERE " + OTHER_SESSIONS_IN_TRANSACTION + " ORDER BY xact_start LIMIT 1");
        ResultSet rows = statement.executeQuery()) {
      if (!rows.next()) {
        return Optional.empty();
      }
      java.sql.Timestamp since = rows.getTimestamp(6);
      return Optional.of(new OpenTransaction(rows.getInt(1), rows.getString(2), rows.getString(3), rows.getString(4),
          rows.getString(5), since == null ? null : since.toInstant(),
          Duration.ofMillis(Math.round(rows.getDouble(7) * 1000)), rows.getString(8)));
    }
  }
}
