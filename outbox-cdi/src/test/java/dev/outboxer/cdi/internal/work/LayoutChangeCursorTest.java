package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A change of the partition layout moves pending messages between partitions with the ids they
 * have, below where a running worker of the partition that receives them reads: that worker starts
 * its reads again at the first row at its next claim, as it does after another node held the
 * partition, so the moved messages go out at once and in order (not 10 s later, found by the sweep).
 */
class LayoutChangeCursorTest {

  @Test
  void messages_moved_in_by_a_layout_change_are_read_at_the_next_claim() throws Exception {
    try (LogCapture log = LogCapture.of(BatchProcessor.class);
        OutboxTestContainer container = OnePartitionOrders.container(5).start()) {
      RecordingRelay relay = container.select(RecordingRelay.class);
      OnePartitionOrders.publishRelayedAndSettled(container, 30);

      // What a change of the partition count does (RulesStore): a pending message of a partition that goes away
      // (here 7, which no worker runs) moves to its new partition with its id, and the layout version moves on.
      long movedId = relay.confirmed().get(2).id();
      try (Connection connection = TestDatabase.POSTGRESQL.connect(); Statement statement = connection.createStatement()) {
        connection.setAutoCommit(false);
        statement.executeUpdate("INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key,"
            + " message_type, content_type, payload, status, attempts, created_at) VALUES (" + movedId + ", 'orders', 7,"
            + " 7, 'moved', 'Keyed', 'application/json', CAST('{}' AS bytea), 'PENDING', 0, now() AT TIME ZONE 'UTC')");
        statement.executeUpdate("UPDATE outbox_message SET partition_no = MOD(partition_key, 1) WHERE outbox = 'orders'"
            + " AND partition_no <> MOD(partition_key, 1)");
        statement.executeUpdate("UPDATE outbox_rules SET layout_version = layout_version + 1 WHERE outbox = 'orders'");
        connection.commit();
      }

      await().atMost(Duration.ofSeconds(5)).until(() -> relay.confirmed().stream()
          .anyMatch(record -> "moved".equals(record.groupKey())));
      assertThat(relay.confirmed().stream().filter(record -> "moved".equals(record.groupKey()))
          .map(OutboxRecord::id).toList()).containsExactly(movedId);
      assertThat(log.warnings()).as("found by a read from the first row, not by the sweep")
          .noneMatch(warning -> warning.contains("lay below the partition's read position"));
    }
  }
}
