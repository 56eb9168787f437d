package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The safety net under the partition's read cursor: a pending row below where reads start (which
 * the cursor's rules should never leave there) is found by the periodic read from the first row,
 * relayed, and named in a WARNING, instead of waiting for good.
 */
class LeftBehindSweepTest {

  @Test
  void a_pending_row_below_the_read_position_is_found_relayed_and_named() throws Exception {
    try (LogCapture log = LogCapture.of(BatchProcessor.class);
        OutboxTestContainer container = OnePartitionOrders.container(5).start()) {
      RecordingRelay relay = container.select(RecordingRelay.class);
      OnePartitionOrders.publishRelayedAndSettled(container, 30);

      // A pending row with an id the reads have passed, as a hole in the cursor's rules would leave one.
      long strandedId = relay.confirmed().get(2).id();
      try (Connection connection = TestDatabase.POSTGRESQL.connect(); PreparedStatement insert =
          connection.prepareStatement("INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key,"
              + " message_type, content_type, payload, status, attempts, created_at)"
              + " VALUES (?, 'orders', 0, 0, 'stranded', 'Keyed', 'application/json', CAST('{}' AS bytea), 'PENDING', 0,"
              + " now() AT TIME ZONE 'UTC')")) {
        insert.setLong(1, strandedId);
        insert.executeUpdate();
      }
      Thread.sleep(1_000);
      assertThat(relay.confirmed().stream().filter(record -> "stranded".equals(record.groupKey())))
          .as("reads start above it: not read within a second").isEmpty();

      container.clock().advance(PartitionCursor.SWEEP_INTERVAL.plusSeconds(1));
      await().atMost(Duration.ofSeconds(10)).until(() -> relay.confirmed().stream()
          .anyMatch(record -> "stranded".equals(record.groupKey())));
      assertThat(relay.confirmed().stream().filter(record -> "stranded".equals(record.groupKey()))
          .map(OutboxRecord::id).toList()).containsExactly(strandedId);
      await().atMost(Duration.ofSeconds(5)).until(() -> !log.warnings().isEmpty());
      assertThat(log.warnings()).anySatisfy(warning -> assertThat(warning)
          .contains("Outbox 'orders', partition 0: 1 pending message(s) lay below the partition's read position ["
              + strandedId + "]"));
      assertThat(container.tables().countMessages()).isZero();
    }
  }
}
