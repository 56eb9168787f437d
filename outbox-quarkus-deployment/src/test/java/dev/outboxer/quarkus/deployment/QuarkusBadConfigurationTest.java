package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application whose {@code outbox.*} configuration is wrong does not start, and the one
 * failure names every problem: a misspelt key (with the key it is near), an invalid value and a
 * relay name that names no relay (with the relay it is near).
 */
class QuarkusBadConfigurationTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, RecordingRelay.class,
          OrderPlaced.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.orders.max-atempts", "5")
      .overrideConfigKey("outbox.billing.relay", "recording")
      .overrideConfigKey("outbox.billing.batch-size", "lots")
      .overrideConfigKey("outbox.audit.relay", "recordng")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with Outboxer's configuration problems: %s", failure).isNotNull();
        assertThat(problem.getMessage())
            .contains("outbox.orders.max-atempts").contains("max-attempts")
            .contains("outbox.billing.batch-size=lots")
            .contains("outbox.audit.relay").contains("recording");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
