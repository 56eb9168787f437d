package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

class H2AdminBulkDeadTest extends AdminBulkDeadContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  void insertDead(Connection connection, int count, int groups) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_message (id, outbox, partition_no,"
        + " partition_key, group_key, message_type, content_type, payload, status, attempts, created_at, last_error)"
        + " SELECT X, ?, 0, MOD(X, 100), CONCAT('g', MOD(X, ?)), 't', 'text/plain', X'61', 'DEAD', 1,"
        + " TIMESTAMP '2026-01-01 00:00:00', 'refused' FROM SYSTEM_RANGE(1, ?)")) {
      insert.setString(1, OUTBOX);
      insert.setInt(2, groups);
      insert.setInt(3, count);
      insert.executeUpdate();
    }
    try (PreparedStatement sequence = connection.prepareStatement("ALTER SEQUENCE outbox_message_seq RESTART WITH "
        + (count + 1))) {
      sequence.executeUpdate();
    }
    if (!connection.getAutoCommit()) {
      connection.commit();
    }
  }
}
