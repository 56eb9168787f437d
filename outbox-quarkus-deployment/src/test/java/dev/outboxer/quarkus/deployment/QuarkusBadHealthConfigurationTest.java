package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application with outbox-health whose {@code outbox.health.*} keys are wrong does not
 * start, and the failure names each bad key and its value: a duration that is not one, and a
 * threshold of an outbox that does not exist. The keys are checked by outbox-health's own reading
 * of its settings, as on the servers, where its portable extension (which ArC does not run) does it.
 */
class QuarkusBadHealthConfigurationTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, RecordingRelay.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.health.worker-stall", "ten seconds")
      .overrideConfigKey("outbox.ordres.health.max-lag", "1m")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with outbox-health's configuration problems: %s", failure).isNotNull();
        assertThat(problem.getMessage())
            .contains("outbox.health.worker-stall=ten seconds is not a duration")
            .contains("outbox.ordres.health.max-lag is set but no outbox 'ordres' exists");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
