package dev.outboxer.cdi.internal.admin;

import dev.outboxer.cdi.internal.DeadMessages;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;

class MariaDbAdminBulkDeadTest extends AdminBulkDeadContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  void insertDead(Connection connection, int count, int groups) throws SQLException {
    DeadMessages.insert(database(), connection, OUTBOX, count, groups);
  }
}
