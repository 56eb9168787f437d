package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MariaDbContractTest extends DatabaseContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String lockWaitsQuery() {
    return "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
  }

  @Override
  @org.junit.jupiter.api.Test
  void a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group()
      throws Exception {
    super.a_message_that_begins_to_wait_after_the_claim_is_listed_with_the_scan_that_returns_its_group();
  }

  /**
   * The scan returns the payloads (LONGBLOB): in a derived table MariaDB materialises them, and a
   * temporary table with a BLOB column goes to disk, every batch.
   */
  @Test
  void the_scan_with_its_waiting_list_writes_no_temporary_table() throws Exception {
    try {
      for (int i = 0; i < 5; i++) {
        int sequence = i;
        inTransaction(() -> outbox.publish("orders", new Keyed("customer:" + sequence, sequence)));
      }
      try (Connection plain = database().connect()) {
        plain.setAutoCommit(false);
        long before = temporaryTables(plain);
        BatchStatements.ClaimedRead read = statements.claimAndRead(plain, "orders", 0, "test-node", "test-instance",
            LocalDateTime.now(ZoneOffset.UTC), 0, new BatchStatements.ReadRequest(Ordering.GROUP, 0, 100, true));
        long after = temporaryTables(plain);
        plain.rollback();
        assertThat(read.claim().claimed()).isTrue();
        assertThat(after - before).as("temporary tables (Created_tmp_tables) of the claim and read").isZero();
      }
    } finally {
      Rows.clear(database());
    }
  }

  private static long temporaryTables(Connection connection) throws Exception {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW SESSION STATUS LIKE 'Created_tmp_tables'")) {
      rows.next();
      return rows.getLong(2);
    }
  }
}
