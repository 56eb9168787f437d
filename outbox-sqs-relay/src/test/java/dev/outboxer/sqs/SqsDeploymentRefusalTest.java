package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A standard queue for an outbox with {@code group} ordering fails the deployment: the container
 * (Weld, Narayana, Hibernate on H2, the real core) does not start, and the error says why and what
 * to do.
 */
class SqsDeploymentRefusalTest {

  @Test
  void a_standard_queue_for_group_ordering_fails_the_deployment_saying_why_and_the_fix() {
    String queue = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.orders.relay", "sqs");
    config.put("outbox.orders.sqs.queue-url", queue);
    config.put("outbox.database", "h2"); // skips the detection query, which H2 logs as an error

    Throwable failure = catchThrowable(() -> OutboxTestContainer.builder(TestDatabase.H2)
        .config(config)
        .start()
        .close()); // started: the assertion below fails

    // Reported by the provider's validate() at deployment, on every node (also publish-only ones); the container
    // wraps it in its DeploymentException.
    assertThat(failure).as("the deployment failed").isNotNull()
        .hasStackTraceContaining(OutboxConfigurationException.class.getName())
        .hasStackTraceContaining("outbox.orders.sqs.queue-url=" + queue + " names a standard queue"
            + " (its name does not end in .fifo), but outbox 'orders' has ordering=group."
            + " Standard queues do not keep the order of messages")
        .hasStackTraceContaining("use a FIFO queue (its name ends in .fifo), or set"
            + " outbox.orders.ordering=none if the order does not matter (sqs relay of outbox 'orders')");
  }
}
