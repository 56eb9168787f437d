package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.spi.CoreSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.HashSet;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The rules in force per outbox ({@code outbox_rules}): one partition count for the whole cluster,
 * which every publish and every claim reads. At start-up a node brings them in line with its
 * configuration.
 *
 * <h2>Changing the partition count on a live backlog</h2>
 * Online, in one transaction: the rules row is locked exclusively, which waits for every transaction
 * that published with the old count (their inserts hold it in a shared lock) and holds back new
 * publishers until the change commits; every partition row is locked, which waits for running
 * batches and keeps new ones out; every pending and dead message is moved to its partition under
 * the new count ({@code partition_key % count}, one statement); partition rows are added or
 * removed; the layout version goes up. Messages keep their ids, and a group is again in one
 * partition, so its order holds. Workers on other nodes see the new layout at their next claim and
 * start or stop workers to match. The change waits at most {@value #LOCK_WAIT_SECONDS}s for the
 * locks; a node that cannot get them in time starts with the count in force and says so.
 */
@ApplicationScoped
public class RulesStore {

  private static final Logger LOG = Logger.getLogger(RulesStore.class.getName());
  static final int LOCK_WAIT_SECONDS = 10;
  /**
   * Bounds the wait for the rules and partition locks: a long-running publisher must not stall the
   * start (PostgreSQL: for this transaction; MariaDB: per statement, see {@link DialectSql#boundLockWait}).
   */
  private static final Duration LOCK_WAIT = Duration.ofSeconds(LOCK_WAIT_SECONDS);

  @Inject Database database;

  /** The partition layout in force after synchronising. */
  public record Layout(int partitionCount, int layoutVersion) {}

  /** Runs in the caller's transaction. */
  public Layout synchronize(Connection connection, OutboxSettings settings, LocalDateTime now, String nodeId)
      throws SQLException {
    Dialect dialect = database.dialect();
    if (dialect.singleWriter()) {
      // Writes follow the read; the write lock first keeps the read from having to be upgraded (see SingleWriter).
      SingleWriter.takeWriteLock(connection);
    }
    Stored stored = read(connection, settings.name(), null);
    Long maxAttempts = settings.unlimitedAttempts() ? null : settings.maxAttempts();
    if (stored == null) {
      try (PreparedStatement statement = connection.prepareStatement("INSERT INTO outbox_rules (outbox, ordering_mode,"
          + " partition_count, layout_version, max_attempts, backoff_min_ms, backoff_max_ms, updated_at, updated_by)"
          + " VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)")) {
        statement.setString(1, settings.name());
        statement.setString(2, settings.ordering().configValue());
        statement.setInt(3, settings.partitions());
        Sql.setNullableLong(statement, 4, maxAttempts);
        statement.setLong(5, settings.backoffMin().toMillis());
        statement.setLong(6, settings.backoffMax().toMillis());
        Sql.setUtc(statement, 7, now);
        statement.setString(8, truncate(nodeId));
        statement.executeUpdate();
      }
      ensurePartitionRows(connection, settings.name(), settings.partitions());
      LOG.info("Outbox '" + settings.name() + "' created with " + settings.partitions() + " partition(s), ordering "
          + settings.ordering().configValue());
      return new Layout(settings.partitions(), 1);
    }
    Layout layout = new Layout(stored.partitionCount, stored.layoutVersion);
    if (stored.partitionCount != settings.partitions()) {
      dialect.sql().boundLockWait(connection, LOCK_WAIT);
      stored = dialect.singleWriter() ? stored
          : read(connection, settings.name(), dialect.sql().lockWaitPrefix(LOCK_WAIT));
      layout = stored.partitionCount == settings.partitions()
          ? new Layout(stored.partitionCount, stored.layoutVersion)
          : changePartitionCount(connection, settings, stored, now, nodeId);
    }
    if (!settings.ordering().configValue().equals(stored.ordering) || stored.backoffMinMillis != settings.backoffMin()
        .toMillis() || stored.backoffMaxMillis != settings.backoffMax().toMillis() || !java.util.Objects.equals(
        stored.maxAttempts, maxAttempts)) {
      if (!settings.ordering().configValue().equals(stored.ordering)) {
        LOG.warning("Outbox '" + settings.name() + "': ordering changes from " + stored.ordering + " to "
            + settings.ordering().configValue() + " (set by " + nodeId + "); nodes still running with "
            + stored.ordering + " keep it until they restart");
      }
      try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_rules SET ordering_mode = ?,"
          + " max_attempts = ?, backoff_min_ms = ?, backoff_max_ms = ?, updated_at = ?, updated_by = ? WHERE outbox = ?")) {
        statement.setString(1, settings.ordering().configValue());
        Sql.setNullableLong(statement, 2, maxAttempts);
        statement.setLong(3, settings.backoffMin().toMillis());
        statement.setLong(4, settings.backoffMax().toMillis());
        Sql.setUtc(statement, 5, now);
        statement.setString(6, truncate(nodeId));
        statement.setString(7, settings.name());
        statement.executeUpdate();
      }
    }
    ensurePartitionRows(connection, settings.name(), layout.partitionCount());
    return layout;
  }

  /** Reads the layout in force (no locks). */
  public Layout layout(Connection connection, String outbox) throws SQLException {
    Stored stored = read(connection, outbox, null);
    return stored == null ? null : new Layout(stored.partitionCount, stored.layoutVersion);
  }

  private Layout changePartitionCount(Connection connection, OutboxSettings settings, Stored stored,
      LocalDateTime now, String nodeId) throws SQLException {
    int count = settings.partitions();
    // Every worker of the old layout finishes its batch; new ones wait until this commits. (SQLite: the write lock
    // taken at the start already did both.)
    if (!database.dialect().singleWriter()) {
      lockPartitionRows(connection, settings.name());
    }
    int moved;
    try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_message SET partition_no ="
        + " MOD(partition_key, ?) WHERE outbox = ? AND partition_no <> MOD(partition_key, ?)")) {
      statement.setInt(1, count);
      statement.setString(2, settings.name());
      statement.setInt(3, count);
      moved = statement.executeUpdate();
    }
    try (PreparedStatement statement = connection.prepareStatement(
        "DELETE FROM outbox_partition WHERE outbox = ? AND partition_no >= ?")) {
      statement.setString(1, settings.name());
      statement.setInt(2, count);
      statement.executeUpdate();
    }
    ensurePartitionRows(connection, settings.name(), count);
    int version = stored.layoutVersion + 1;
    try (PreparedStatement statement = connection.prepareStatement("UPDATE outbox_rules SET partition_count = ?,"
        + " layout_version = ?, updated_at = ?, updated_by = ? WHERE outbox = ?")) {
      statement.setInt(1, count);
      statement.setInt(2, version);
      Sql.setUtc(statement, 3, now);
      statement.setString(4, truncate(nodeId));
      statement.setString(5, settings.name());
      statement.executeUpdate();
    }
    LOG.warning("Outbox '" + settings.name() + "': partition count changed from " + stored.partitionCount + " to "
        + count + " by this node (" + settings.key(CoreSettings.PARTITIONS) + "=" + count + "); " + moved + " waiting or"
        + " dead message(s) moved to their new partitions, per-group order kept. Nodes still running see the new"
        + " count at their next batch and follow it; give them the same setting before they restart.");
    return new Layout(count, version);
  }

  private void lockPartitionRows(Connection connection, String outbox) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(database.dialect().sql().lockWaitPrefix(LOCK_WAIT)
        + "SELECT partition_no FROM outbox_partition WHERE outbox = ? FOR UPDATE")) {
      statement.setString(1, outbox);
      statement.executeQuery().close();
    }
  }

  private static void ensurePartitionRows(Connection connection, String outbox, int count) throws SQLException {
    Set<Integer> existing = new HashSet<>();
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT partition_no FROM outbox_partition WHERE outbox = ?")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          existing.add(rows.getInt(1));
        }
      }
    }
    try (PreparedStatement statement = connection.prepareStatement(
        "INSERT INTO outbox_partition (outbox, partition_no, fencing_token) VALUES (?, ?, 0)")) {
      boolean any = false;
      for (int partition = 0; partition < count; partition++) {
        if (!existing.contains(partition)) {
          statement.setString(1, outbox);
          statement.setInt(2, partition);
          statement.addBatch();
          any = true;
        }
      }
      if (any) {
        statement.executeBatch();
      }
    }
  }

  /** Reads the rules row; with a lock prefix (possibly empty), locked for update. */
  private static Stored read(Connection connection, String outbox, String lockPrefix) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement((lockPrefix == null ? "" : lockPrefix)
        + "SELECT ordering_mode, partition_count, layout_version, max_attempts, backoff_min_ms, backoff_max_ms,"
        + " updated_by FROM outbox_rules WHERE outbox = ?" + (lockPrefix != null ? " FOR UPDATE" : ""))) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          return null;
        }
        long maxAttempts = rows.getLong(4);
        Long attempts = rows.wasNull() ? null : maxAttempts;
        return new Stored(rows.getString(1), rows.getInt(2), rows.getInt(3), attempts, rows.getLong(5),
            rows.getLong(6), rows.getString(7));
      }
    }
  }

  private static String truncate(String nodeId) {
    return nodeId.length() > 200 ? nodeId.substring(0, 200) : nodeId;
  }

  private record Stored(String ordering, int partitionCount, int layoutVersion, Long maxAttempts,
      long backoffMinMillis, long backoffMaxMillis, String updatedBy) {}
}
