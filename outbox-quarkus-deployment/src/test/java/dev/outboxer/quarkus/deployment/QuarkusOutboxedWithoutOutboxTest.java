package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code @Outboxed} types the build finds in Quarkus' index reach the start-time check: a
 * message class {@code @Outboxed("shipping")} in an application that configures no outbox
 * {@code shipping} fails the start, naming {@code outbox.shipping.relay} and the class.
 */
class QuarkusOutboxedWithoutOutboxTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, RecordingRelay.class,
          ShipmentRequested.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with Outboxer's configuration problem: %s", failure).isNotNull();
        assertThat(problem.getMessage()).contains(ShipmentRequested.class.getName())
            .contains("@Outboxed(\"shipping\")").contains("outbox.shipping.relay");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
