package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

class PostgresAdminLockingTest extends AdminLockingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @Override
  String lockWaitsSql() {
    return "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
  }

  @Override
  void lockGroup(Connection connection, String outbox, String groupKey) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      statement.setLong(1, lockKey(outbox, groupKey));
      statement.executeQuery().close();
    }
  }
}
