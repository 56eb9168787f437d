package dev.outboxer.health;

import static dev.outboxer.health.HealthProbe.data;
import static dev.outboxer.health.HealthProbe.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.PreparedBranch;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Readiness {@code outbox-prepared-transactions} names the partitions a prepared (two-phase)
 * transaction holds, with its gid and the way out, and stays UP: the other partitions work, and
 * taking every node out of service (the lock is the whole cluster's) would not finish the
 * transaction.
 */
class PreparedTransactionsCheckTest {

  @Test
  void a_partition_held_by_a_prepared_transaction_is_named_in_the_data_and_readiness_stays_up() {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.health.refresh-interval", "100ms")
        .beans(RecordingRelay.class)
        .start()) {
      HealthProbe probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
      OutboxAdmin admin = container.select(OutboxAdmin.class);
      Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> admin.partitions("orders").size() == 2);

      JsonObject free = probe.readiness(PreparedTransactionsCheck.NAME);
      assertThat(status(free)).isEqualTo("UP");
      assertThat(data(free).getString("orders.held-partitions")).isEqualTo("none");

      try (PreparedBranch branch = PreparedBranch.holdingPartition(TestDatabase.POSTGRESQL, "orders", 1)) {
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !data(probe.readiness(
            PreparedTransactionsCheck.NAME)).getString("orders.held-partitions").equals("none"));
        JsonObject held = probe.readiness(PreparedTransactionsCheck.NAME);

        assertThat(status(held)).isEqualTo("UP");
        assertThat(data(held).getString("orders.held-partitions")).isEqualTo("1");
        assertThat(data(held).getString("orders.partition-1")).contains("'" + branch.gid() + "'",
            "COMMIT PREPARED", "ROLLBACK PREPARED", "recovery", branch.databaseName());
        assertThat(data(held)).doesNotContainKey("orders.partition-0");
      }
    }
  }
}
