package dev.outboxer.cdi.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** H2's batch statements: the partition row locked, then the fencing token drawn (H2 cannot do both at once). */
final class H2BatchSql extends RowByRowBatchSql {

  H2BatchSql(DialectSql dialect) {
    super(dialect);
  }

  @Override
  LockedPartition lockPartition(Connection connection, String outbox, int partition) throws SQLException {
    String previous;
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT owner_instance FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED")) {
      statement.setString(1, outbox);
      statement.setInt(2, partition);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          return null;
        }
        previous = rows.getString(1);
      }
    }
    return new LockedPartition(nextFencingToken(connection), previous);
  }

  private static long nextFencingToken(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("VALUES NEXT VALUE FOR outbox_fencing_seq");
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
