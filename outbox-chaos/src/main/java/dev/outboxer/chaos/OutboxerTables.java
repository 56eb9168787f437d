package dev.outboxer.chaos;

import dev.outboxer.cdi.internal.store.GroupHash;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every statement of the chaos suite that touches Outboxer's own tables, kept in one place because
 * the core's schema is changing: adapt this class, nothing else.
 */
final class OutboxerTables {

  /** A message row left in the outbox after the run drained. */
  record Leftover(long id, String status, int attempts, String lastError) {
    boolean dead() {
      return "DEAD".equals(status);
    }
  }

  private OutboxerTables() {}

  /** Drops and recreates Outboxer's tables from the DDL the core ships, through the test kit. */
  static void reset(Databases databases) {
    databases.database().resetSchema();
  }

  /** Pending (not dead) messages of the outbox: the drain is done when this is 0. */
  static long pending(Connection connection, String outbox) throws SQLException {
    try (PreparedStatement count = connection.prepareStatement(
        "SELECT COUNT(*) FROM outbox_message WHERE outbox = ? AND status <> 'DEAD'")) {
      count.setString(1, outbox);
      try (ResultSet rows = count.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  /** Every message still in the outbox (dead or pending), by id. */
  static Map<Long, Leftover> leftovers(Connection connection, String outbox) throws SQLException {
    Map<Long, Leftover> rows = new LinkedHashMap<>();
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT id, status, attempts, last_error FROM outbox_message WHERE outbox = ? ORDER BY id")) {
      query.setString(1, outbox);
      try (ResultSet result = query.executeQuery()) {
        while (result.next()) {
          rows.put(result.getLong(1), new Leftover(result.getLong(1), result.getString(2), result.getInt(3),
              result.getString(4)));
        }
      }
    }
    return rows;
  }

  /**
   * The fencing token of the partition's current claim, read inside the worker's transaction that
   * made it (the local handler's batch token).
   */
  static long claimToken(EntityManager entityManager, String outbox, int partition) {
    Object token = entityManager.createNativeQuery(
            "SELECT fencing_token FROM outbox_partition WHERE outbox = ?1 AND partition_no = ?2")
        .setParameter(1, outbox)
        .setParameter(2, partition)
        .getSingleResult();
    return ((Number) token).longValue();
  }

  /**
   * The partition the core puts a group in. Its rows are not flushed before the publishing
   * transaction commits, so this asks the core's (internal) hash instead of reading the row.
   */
  static int partitionOf(String groupKey, int partitions) {
    return GroupHash.partition(GroupHash.partitionKey(groupKey), partitions);
  }
}
