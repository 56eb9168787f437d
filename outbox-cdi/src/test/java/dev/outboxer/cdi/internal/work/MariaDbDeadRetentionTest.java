package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.store.DeadMessageStatements;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

class MariaDbDeadRetentionTest extends DeadRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  String nextIdSql() {
    return "NEXT VALUE FOR outbox_message_seq";
  }

  /**
   * GET_LOCK names are the server's, not a database's: another application (another schema, a
   * staging copy, another checkout's tests) on the same server with an outbox of the same name must
   * not lock this one's retention out.
   */
  @Test
  void an_outbox_of_the_same_name_in_another_database_of_the_server_does_not_lock_this_ones_retention_out()
      throws Exception {
    List<Long> dead = deadLongAgo("aged", 3);
    DeadMessageStatements statements = container.select(DeadMessageStatements.class);
    try (Connection neighbour = database().connectToNeighbour()) {
      assertThat(statements.tryRetentionLock(neighbour, "aged")).as("the neighbour database's node takes its lock")
          .isTrue();
      try {
        DeadMessageRetention.Run run = retention.run("aged");
        assertThat(run.lockedOut()).as("locked out by another database's outbox 'aged'").isFalse();
        assertThat(run.removed()).isEqualTo(dead.size());
        assertThat(Rows.messages(database(), "aged")).isZero();
      } finally {
        statements.releaseRetentionLock(neighbour, "aged");
      }
    }
  }
}
