package dev.outboxer.cdi.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** MariaDB's batch statements: the partition row locked and the fencing token drawn in one statement. */
final class MariaDbBatchSql extends RowByRowBatchSql {

  MariaDbBatchSql(DialectSql dialect) {
    super(dialect);
  }

  @Override
  LockedPartition lockPartition(Connection connection, String outbox, int partition) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT owner_instance, NEXT VALUE FOR outbox_fencing_seq FROM outbox_partition"
            + " WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? new LockedPartition(rows.getLong(2), rows.getString(1)) : null;
      }
    }
  }
}
