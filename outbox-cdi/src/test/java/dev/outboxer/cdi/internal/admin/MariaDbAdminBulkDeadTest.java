package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

class MariaDbAdminBulkDeadTest extends AdminBulkDeadContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  void insertDead(Connection connection, int count, int groups) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_message (id, outbox, partition_no,"
        + " partition_key, group_key, message_type, content_type, payload, status, attempts, created_at, last_error)"
        + " SELECT seq, ?, 0, seq % 100, CONCAT('g', seq % ?), 't', 'text/plain', 'a', 'DEAD', 1,"
        + " '2026-01-01 00:00:00', 'refused' FROM seq_1_to_" + count)) {
      insert.setString(1, OUTBOX);
      insert.setInt(2, groups);
      insert.executeUpdate();
    }
    try (PreparedStatement sequence = connection.prepareStatement("SELECT SETVAL(outbox_message_seq, " + count + ")")) {
      sequence.executeQuery().close();
    }
  }
}
