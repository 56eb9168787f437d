package dev.outboxer.health;

import static dev.outboxer.health.HealthProbe.data;
import static dev.outboxer.health.HealthProbe.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * Readiness {@code outbox-started} follows Outboxer's life cycle on a real start and stop: DOWN
 * while the application starts (before Outboxer did), UP with one entry per outbox while it runs,
 * DOWN once shutdown has begun.
 */
class ReadinessTest {

  @Test
  void readiness_is_down_before_outboxer_started_up_while_it_runs_and_down_after_it_stopped() {
    LifecycleProbe.beforeStart = null;
    LifecycleProbe.afterStop = null;
    JsonObject running;
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.audit.relay", "recording")
        .beans(RecordingRelay.class, LifecycleProbe.class)
        .start()) {
      running = new HealthProbe(container.select(SmallRyeHealthReporter.class)).readiness(OutboxStartedCheck.NAME);
    }

    assertThat(LifecycleProbe.beforeStart).as("probed before Outboxer's start-up").isNotNull();
    assertThat(status(LifecycleProbe.beforeStart)).isEqualTo("DOWN");
    assertThat(data(LifecycleProbe.beforeStart)).containsOnlyKeys("orders", "audit");
    assertThat(data(LifecycleProbe.beforeStart).getString("orders")).isEqualTo("not started");

    assertThat(status(running)).isEqualTo("UP");
    assertThat(data(running).getString("orders")).isEqualTo("started, 2 partition worker(s) on this node");
    assertThat(data(running).getString("audit")).isEqualTo("started, 1 partition worker(s) on this node");

    assertThat(LifecycleProbe.afterStop).as("probed after Outboxer's shutdown").isNotNull();
    assertThat(status(LifecycleProbe.afterStop)).isEqualTo("DOWN");
  }

  @Test
  void a_publish_only_node_is_ready_and_says_it_runs_no_workers() {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.orders.relay", "recording")
        .config("outbox.worker", "none")
        .beans(RecordingRelay.class)
        .start()) {
      HealthProbe probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
      JsonObject started = probe.readiness(OutboxStartedCheck.NAME);
      JsonObject workers = probe.liveness(OutboxWorkersCheck.NAME);

      assertThat(status(started)).isEqualTo("UP");
      assertThat(data(started).getString("orders")).isEqualTo("started, publish only on this node");
      assertThat(status(workers)).isEqualTo("UP");
      assertThat(data(workers).getInt("workers")).isZero();
    }
  }
}
