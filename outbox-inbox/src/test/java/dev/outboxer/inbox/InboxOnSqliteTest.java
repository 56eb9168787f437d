package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class InboxOnSqliteTest extends InboxContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.SQLITE;
  }

  @Override
  void dropProcessedAtColumn() {
    // SQLite drops no column an index uses.
    database().execute("DROP INDEX outbox_inbox_processed_idx", "ALTER TABLE outbox_inbox DROP COLUMN processed_at");
  }

  /**
   * SQLite differs here: a transaction that read before another consumer committed cannot write any
   * more, so its accept fails instead of answering false. The consumer rolls back, the copy comes
   * again, and then it is dropped: still no double processing.
   */
  @Override
  @Test
  void aConsumerWhoseTransactionReadEarlierStillSeesTheAcceptCommittedSince() throws Exception {
    acceptCommitted("orders", "order:1", 2);
    InboxMessage copy = new InboxMessage("orders", "order:1", 5);
    try (Connection second = transaction()) {
      try (Statement statement = second.createStatement();
          ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM outbox_inbox")) {
        rows.next();
      }
      assertThat(acceptCommitted("orders", "order:1", 5)).isTrue();

      assertThatThrownBy(() -> inbox.accept(second, copy)).isInstanceOf(InboxException.class);
      second.rollback();
    }
    assertThat(acceptCommitted("orders", "order:1", 5)).as("the redelivered copy").isFalse();
  }
}
