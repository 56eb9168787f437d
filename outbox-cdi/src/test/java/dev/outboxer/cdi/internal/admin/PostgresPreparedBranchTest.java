package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.PartitionStatus;
import dev.outboxer.PreparedTransaction;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.PreparedBranch;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A prepared transaction holds a partition's row: the process that prepared it died between the
 * two phases (kill -9 in a burst, with the JMS relay over XA), or its transaction manager gave the
 * branch up. No worker can claim the partition until the branch is finished; that must be said:
 * {@link OutboxAdmin#partitions} names the transaction (gid, when, who, which database) and the
 * worker that finds its partition held logs a WARNING with the way out, once a minute, and an INFO
 * once it claims the partition again.
 *
 * <p>The test prepares such a branch itself ({@link PreparedBranch}) and rolls it back afterwards;
 * it touches no prepared transaction it did not create.
 */
class PostgresPreparedBranchTest {

  private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;
  private static final Duration WAIT = Duration.ofSeconds(20);

  private OutboxTestContainer container;
  private PreparedBranch branch;

  @BeforeEach
  void start() {
    container = OutboxTestContainer.builder(DATABASE)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.orders.max-poll-interval", "200ms")
        .beans(RecordingRelay.class)
        .start();
  }

  @AfterEach
  void stop() {
    try {
      if (branch != null) {
        branch.close();
      }
    } finally {
      container.close();
    }
  }

  @Test
  void a_partition_held_by_a_prepared_transaction_is_named_by_the_admin_view_and_the_worker_warns_once() throws Exception {
    OutboxAdmin admin = container.select(OutboxAdmin.class);
    Eventually.until(WAIT, "both partitions claimed once", () -> admin.partitions("orders").stream()
        .allMatch(p -> p.fencingToken() > 0), () -> admin.partitions("orders").toString());
    assertThat(admin.partitions("orders")).extracting(PartitionStatus::preparedBy).containsOnlyNulls();

    java.util.logging.Logger worker = java.util.logging.Logger.getLogger(
        "dev.outboxer.cdi.internal.work.BatchProcessor");
    Level level = worker.getLevel();
    worker.setLevel(Level.INFO);
    try (LogCapture log = LogCapture.start()) {
      Instant before = Instant.now().minusSeconds(1);
      branch = PreparedBranch.holdingPartition(DATABASE, "orders", 1);
      String gid = branch.gid();

      List<PartitionStatus> partitions = admin.partitions("orders");
      assertThat(partitions.get(0).preparedBy()).isNull();
      PreparedTransaction held = partitions.get(1).preparedBy();
      assertThat(held).as("partition 1: %s", partitions).isNotNull();
      assertThat(held.gid()).isEqualTo(gid);
      assertThat(held.preparedAt()).isAfter(before).isBefore(Instant.now().plusSeconds(1));
      assertThat(held.owner()).isEqualTo(DATABASE.user());
      assertThat(held.database()).isEqualTo(branch.databaseName());
      assertThat(admin.preparedTransactions("orders")).containsOnlyKeys(1).containsEntry(1, held);

      Eventually.until(WAIT, "the worker of partition 1 warned", () -> warnings(log).size() == 1, log::dump);
      String warning = warnings(log).get(0);
      assertThat(warning).contains("'orders'", "partition 1", gid, "COMMIT PREPARED '" + gid + "'",
          "ROLLBACK PREPARED '" + gid + "'", "recovery", "RecoverablePGXADataSource");
      // Polled every 100ms, said once a minute.
      Thread.sleep(1500);
      assertThat(warnings(log)).as(log.dump()).hasSize(1);

      branch.close();
      Eventually.until(WAIT, "the worker claimed partition 1 again and said so", () -> log.messages(Level.INFO).stream()
          .anyMatch(m -> m.contains("partition 1: claimed again") && m.contains(gid)), log::dump);
      assertThat(admin.partitions("orders")).extracting(PartitionStatus::preparedBy).containsOnlyNulls();
    } finally {
      worker.setLevel(level);
    }
  }

  private static List<String> warnings(LogCapture log) {
    return log.messages(Level.WARNING).stream().filter(m -> m.contains("prepared")).toList();
  }
}
