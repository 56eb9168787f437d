package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application with outbox-admin whose {@code outbox.admin.*} keys are wrong does not
 * start, and the failure names the key: a misspelt key, and an empty role (which would guard the
 * API by a role nobody meant). The keys are checked by outbox-admin's own reading of its settings,
 * as on the servers, where its portable extension (which ArC does not run) does it.
 */
class QuarkusBadAdminConfigurationTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, RecordingRelay.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.admin.rol", "operators")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with outbox-admin's configuration problem: %s", failure).isNotNull();
        assertThat(problem.getMessage()).contains("outbox.admin.rol").contains("outbox.admin.role");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
