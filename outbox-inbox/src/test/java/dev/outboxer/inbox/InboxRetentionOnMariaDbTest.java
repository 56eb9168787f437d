package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class InboxRetentionOnMariaDbTest extends InboxRetentionContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  /**
   * GET_LOCK names are the server's, not a database's: the inbox of another database on the same
   * server (another application, a staging copy) must not lock this one's retention out.
   */
  @Test
  void the_inbox_of_another_database_of_the_server_does_not_lock_this_ones_retention_out() throws Exception {
    accept("orders", "order:1", 5);
    clock.advance(Duration.ofDays(8));
    try (Connection neighbour = database().connectToNeighbour()) {
      assertThat(InboxDialect.MARIADB.tryRetentionLock(neighbour)).as("the neighbour database's node takes its lock")
          .isTrue();
      try {
        InboxRetention.Run run = retention(100).run();
        assertThat(run.lockedOut()).as("locked out by another database's inbox").isFalse();
        assertThat(run.removed()).isEqualTo(1);
      } finally {
        InboxDialect.MARIADB.releaseRetentionLock(neighbour);
      }
    }
  }
}
