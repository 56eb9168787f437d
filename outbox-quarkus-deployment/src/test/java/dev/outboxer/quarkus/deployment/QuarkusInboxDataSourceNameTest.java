package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code outbox.inbox.datasource} is a JNDI name, and Quarkus has no JNDI: an application that sets
 * it does not start, and the failure names the key and its value, as a server's does for a name
 * it cannot look up.
 */
class QuarkusInboxDataSourceNameTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL,
          () -> InboxTables.reset(TestDatabase.POSTGRESQL), RecordingRelay.class, PaymentConsumer.class,
          InboxTables.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.inbox.datasource", "jdbc/consumer")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with the inbox's configuration problem: %s", failure).isNotNull();
        assertThat(problem.getMessage()).contains("outbox.inbox.datasource=jdbc/consumer could not be looked up");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
