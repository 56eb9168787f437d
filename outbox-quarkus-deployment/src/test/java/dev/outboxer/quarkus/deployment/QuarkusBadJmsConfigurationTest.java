package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A JMS relay key that names no connection factory fails the start, naming the key and the value:
 * Quarkus has no JNDI, and neither a {@code @Named} nor an {@code @Identifier} bean (a named
 * quarkus-artemis-jms configuration) is called so.
 */
class QuarkusBadJmsConfigurationTest {

  @RegisterExtension @Order(1)
  static final EmbeddedArtemisBroker ARTEMIS = new EmbeddedArtemisBroker();

  @RegisterExtension @Order(2)
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL,
          () -> QuarkusBadJmsConfigurationTest.APP.overrideConfigKey("quarkus.artemis.\"billing\".url", ARTEMIS.url()),
          JmsMessaging.class, EmbeddedArtemisBroker.class, AuditEntry.class)
      .overrideConfigKey("quarkus.otel.traces.enabled", "false")
      .overrideConfigKey("quarkus.artemis.xa-enabled", "true")
      .overrideConfigKey("quarkus.artemis.url", "tcp://127.0.0.1:1")
      .overrideConfigKey("outbox.orders.relay", "jms")
      .overrideConfigKey("outbox.orders.jms.connection-factory", "biling")
      .overrideConfigKey("outbox.orders.jms.destination", "jms/orders")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with Outboxer's configuration problem: %s", failure).isNotNull();
        assertThat(problem.getMessage())
            .contains("outbox.orders.jms.connection-factory=biling")
            .contains("@Named(\"biling\") or @Identifier(\"biling\")");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
