package dev.outboxer.health;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** A bad health setting fails the deployment, with every problem named, before any probe runs. */
class DeploymentValidationTest {

  @Test
  void a_bad_duration_and_a_threshold_of_an_unknown_outbox_fail_the_deployment_naming_keys_and_values() {
    QuietLogs quiet = QuietLogs.of("org.jboss.weld");
    try {
      assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
          .config("outbox.orders.relay", "recording")
          .config("outbox.health.worker-stall", "ten seconds")
          .config("outbox.ordres.health.max-lag", "1m")
          .beans(RecordingRelay.class)
          .start().close())
          .hasStackTraceContaining("outbox.health.worker-stall=ten seconds is not a duration")
          .hasStackTraceContaining("outbox.ordres.health.max-lag is set but no outbox 'ordres' exists");
    } finally {
      quiet.close();
    }
  }
}
