package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

/**
 * The Derby script (the embedded database of the Liberty demo) runs, and the statements Outboxer
 * sends to Derby work on it. The other scripts are exercised by every test that starts a container,
 * where Hibernate validates them against the mapping.
 */
class DdlScriptsTest {

  @Test
  void the_derby_script_creates_a_schema_that_outboxers_statements_work_on() throws Exception {
    TestDatabase derby = TestDatabase.DERBY;
    derby.resetSchema();
    try (Connection connection = derby.connect(); Statement statement = connection.createStatement()) {
      ResultSet next = statement.executeQuery(SqlDialect.DERBY.nextIdSql());
      assertThat(next.next()).isTrue();
      long id = next.getLong(1);
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_message (id, outbox, partition_no,"
          + " group_key, message_type, content_type, payload, status, attempts, created_at) VALUES (?, 'orders', 0, 'g',"
          + " 'T', 'application/json', ?, 'PENDING', 0, ?)")) {
        insert.setLong(1, id);
        insert.setBytes(2, "{}".getBytes());
        insert.setTimestamp(3, Timestamp.valueOf(LocalDateTime.now()));
        insert.executeUpdate();
      }
      statement.executeUpdate("INSERT INTO outbox_partition (outbox, partition_no) VALUES ('orders', 0)");
      connection.setAutoCommit(false);
      try (PreparedStatement claim = connection.prepareStatement(SqlDialect.DERBY.claimPartitionSql())) {
        claim.setString(1, "orders");
        claim.setInt(2, 0);
        assertThat(claim.executeQuery().next()).isTrue();
      }
      connection.commit();
      ResultSet payload = statement.executeQuery("SELECT payload FROM outbox_message WHERE id = " + id);
      assertThat(payload.next()).isTrue();
      assertThat(new String(payload.getBytes(1))).isEqualTo("{}");
      connection.commit();
    }
  }

  @Test
  void the_scripts_declare_the_same_tables_and_indexes() {
    for (TestDatabase database : TestDatabase.values()) {
      String ddl = database.ddl();
      assertThat(ddl).as(database.name())
          .contains("CREATE SEQUENCE outbox_message_seq", "CREATE TABLE outbox_message", "CREATE TABLE outbox_partition",
              "CREATE TABLE outbox_rules", "CREATE TABLE outbox_group_lock", "outbox_message_partition_idx",
              "outbox_message_group_idx", "outbox_message_status_idx");
      assertThat(TestDatabase.statements(ddl)).as(database.name()).hasSize(8);
    }
  }
}
