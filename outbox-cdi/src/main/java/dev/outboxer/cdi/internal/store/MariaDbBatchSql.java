package dev.outboxer.cdi.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;

/**
 * MariaDB's batch statements: the partition row locked and the fencing token drawn in one statement,
 * the relayed rows deleted in one statement that looks each up by primary key.
 */
final class MariaDbBatchSql extends RowByRowBatchSql {

  MariaDbBatchSql(DialectSql dialect) {
    super(dialect);
  }

  /**
   * Locks the partition row, draws the token, reads the rules in force and whether any message of
   * the partition waits (for a retry or its time), in one round trip. The rules and the waiting
   * check are subqueries, which MariaDB reads without locking (a locking read locks the rows of its
   * own table only), so claims of other partitions never wait for the rules row and publishers and
   * admin operations never wait for the check; they are read after the partition row is locked, as
   * the separate reads were: a partition change, which locks every partition row before it updates
   * the rules, has committed before or waits. With nothing waiting, the common case, the read skips
   * its first statement ({@link RowByRowBatchSql}).
   */
  @Override
  LockedPartition lockPartition(Connection connection, String outbox, int partition) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT p.owner_instance, NEXT VALUE FOR outbox_fencing_seq,"
            + " (SELECT r.partition_count FROM outbox_rules r WHERE r.outbox = p.outbox),"
            + " (SELECT r.layout_version FROM outbox_rules r WHERE r.outbox = p.outbox),"
            + " EXISTS (SELECT 1 FROM outbox_message w WHERE w.outbox = p.outbox AND w.partition_no = p.partition_no"
            + " AND w.next_attempt_at IS NOT NULL AND w.status = 'PENDING')"
            + " FROM outbox_partition p WHERE p.outbox = ? AND p.partition_no = ? FOR UPDATE SKIP LOCKED")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          return null;
        }
        long token = rows.getLong(2);
        int partitionCount = rows.getInt(3);
        if (rows.wasNull()) {
          throw BatchStatements.missingRules(outbox);
        }
        return new LockedPartition(token, rows.getString(1), new Rules(partitionCount, rows.getInt(4)),
            rows.getBoolean(5));
      }
    }
  }

  /**
   * The two members in parentheses, without a derived table: MariaDB materialises a derived table,
   * and one with the payloads (a BLOB column) on disk, every batch (a scan of 10,000 1-KB messages
   * with its waiting list took about 215 ms in the derived table, 110 to 170 ms as two statements).
   */
  @Override
  String withWaiting(String scan, String waiting) {
    return "(" + scan + ") UNION ALL (" + waiting + ")";
  }

  /**
   * One statement for the whole batch, joining the ids to the table: the ids, a derived table, come
   * first ({@code STRAIGHT_JOIN}), so each is looked up by primary key ({@code eq_ref}) and only the
   * batch's own rows are locked, as the row-by-row delete locks them (no range, no gap, no full scan
   * of a small table, which an {@code IN} list gets). One round trip instead of a batch of
   * single-row statements: on a 20,000-row drain of 100-message batches about twice as fast.
   */
  @Override
  int deleteRelayed(Connection connection, Collection<Long> relayed) throws SQLException {
    StringBuilder sql = new StringBuilder("DELETE m FROM (SELECT ? AS id");
    sql.append(" UNION ALL SELECT ?".repeat(relayed.size() - 1));
    sql.append(") relayed STRAIGHT_JOIN outbox_message m ON m.id = relayed.id");
    try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
      int index = 1;
      for (long id : relayed) {
        statement.setLong(index++, id);
      }
      return statement.executeUpdate();
    }
  }
}
