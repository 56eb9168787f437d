package dev.outboxer.cdi.internal.admin;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

class MariaDbAdminLockingTest extends AdminLockingContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String lockWaitsSql() {
    return "SELECT COUNT(*) FROM information_schema.INNODB_TRX t"
        + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
        + " WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()";
  }

  @Override
  void lockGroup(Connection connection, String outbox, String groupKey) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("INSERT INTO outbox_group_lock (outbox, group_key,"
        + " locked_at) VALUES (?, ?, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE locked_at = VALUES(locked_at)")) {
      statement.setString(1, outbox);
      statement.setString(2, groupKey);
      statement.executeUpdate();
    }
  }
}
