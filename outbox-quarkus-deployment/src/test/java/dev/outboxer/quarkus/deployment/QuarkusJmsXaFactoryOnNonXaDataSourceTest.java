package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JMS relay with an XA connection factory (Narayana's proxy over quarkus-artemis-jms' XA factory,
 * produced {@code @ApplicationScoped}, so that the relay gets ArC's client proxy of it) on Quarkus'
 * default data source, which is not an XA one ({@code quarkus.datasource.jdbc.transactions} left at
 * {@code enabled}): the relay tells the core that it enlists in the worker's transaction, and the
 * start fails naming the data source and the fix, instead of every batch failing at its commit.
 */
class QuarkusJmsXaFactoryOnNonXaDataSourceTest {

  @RegisterExtension @Order(1)
  static final EmbeddedArtemisBroker ARTEMIS = new EmbeddedArtemisBroker();

  @RegisterExtension @Order(2)
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, () -> {
    ARTEMIS.createQueue("outbox.orders");
    QuarkusJmsXaFactoryOnNonXaDataSourceTest.APP.overrideConfigKey("quarkus.artemis.url", ARTEMIS.url());
  }, JmsMessaging.class, EmbeddedArtemisBroker.class, AuditEntry.class)
      .overrideConfigKey("quarkus.artemis.xa-enabled", "true")
      .overrideConfigKey("quarkus.otel.traces.enabled", "false")
      .overrideConfigKey("outbox.orders.relay", "jms")
      .overrideConfigKey("outbox.orders.jms.connection-factory", JmsMessaging.XA_FACTORY)
      .overrideConfigKey("outbox.orders.jms.destination", "jms/orders")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with Outboxer's configuration problem: %s", failure).isNotNull();
        assertThat(problem.getMessage())
            .contains("outbox.orders.relay=jms")
            .contains("is not an XA data source")
            .contains("quarkus.datasource.jdbc.transactions=xa");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
