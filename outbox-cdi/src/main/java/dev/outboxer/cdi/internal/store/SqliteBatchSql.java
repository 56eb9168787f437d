package dev.outboxer.cdi.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SQLite's batch statements. SQLite has no row locks: a claim begins by drawing its fencing token,
 * a write that waits for the database's single write lock (up to the connection's {@code
 * busy_timeout}) and keeps it until the batch transaction ends. So no two transactions hold a
 * partition at once, and while a batch runs every other writer (publishers, other partitions'
 * claims) waits for it: batches of an SQLite outbox run one at a time.
 */
final class SqliteBatchSql extends RowByRowBatchSql {

  /**
   * SQLite: the highest fencing token this process handed out. A token is drawn from a counter
   * row, which a rollback of the claim resets; drawing above this mark keeps a rolled-back claim's
   * token, which its relay may still be using, from being handed out again. SQLite databases are
   * used by one process, so the mark sees every claim but those of an earlier run of the process,
   * whose relays ended with it. Shared by every outbox (tokens only have to increase).
   */
  private static final AtomicLong TOKEN_MARK = new AtomicLong();

  SqliteBatchSql(DialectSql dialect) {
    super(dialect);
  }

  /**
   * The token is drawn first, which takes the write lock (or waits for it); the partition is then
   * free by construction. A writer that holds the lock for longer than busy_timeout makes the
   * partition count as held elsewhere, as a locked row does on the other databases.
   */
  @Override
  LockedPartition lockPartition(Connection connection, String outbox, int partition) throws SQLException {
    long token;
    try {
      token = SingleWriter.draw(connection, "outbox_fencing_seq", 1, TOKEN_MARK.get());
    } catch (SQLException busy) {
      if (!SingleWriter.isBusy(busy)) {
        throw busy;
      }
      return null;
    }
    TOKEN_MARK.accumulateAndGet(token, Math::max);
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT owner_instance FROM outbox_partition WHERE outbox = ? AND partition_no = ?")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? new LockedPartition(token, rows.getString(1)) : null;
      }
    }
  }
}
