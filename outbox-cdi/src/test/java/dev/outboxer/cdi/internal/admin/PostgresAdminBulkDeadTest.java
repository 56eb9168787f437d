package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

class PostgresAdminBulkDeadTest extends AdminBulkDeadContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  void insertDead(Connection connection, int count, int groups) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_message (id, outbox, partition_no,"
        + " partition_key, group_key, message_type, content_type, payload, status, attempts, created_at, last_error)"
        + " SELECT n, ?, 0, n % 100, 'g' || (n % ?), 't', 'text/plain', '\\x61'::bytea, 'DEAD', 1,"
        + " TIMESTAMP '2026-01-01 00:00:00', 'refused' FROM generate_series(1, ?) n")) {
      insert.setString(1, OUTBOX);
      insert.setInt(2, groups);
      insert.setInt(3, count);
      insert.executeUpdate();
    }
    try (PreparedStatement sequence = connection.prepareStatement("SELECT setval('outbox_message_seq', ?)")) {
      sequence.setLong(1, count);
      sequence.executeQuery().close();
    }
  }
}
