package dev.outboxer.cdi.internal.cdi;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.Test;

/** A bad configuration fails the deployment, naming the key and the value; nothing starts. */
class DeploymentValidationTest {

  @Outboxed("invoices")
  public record InvoiceSent(long invoiceId) implements OutboxMessage {}

  @Test
  void a_bad_value_fails_the_deployment_naming_key_and_value() {
    assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.H2)
            .config("outbox.orders.relay", "recording")
            .config("outbox.orders.partitions", "zero")
            .beans(RecordingRelay.class)
            .start())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining("outbox.orders.partitions=zero is not a number");
  }

  @Test
  void a_relay_name_that_matches_nothing_fails_the_deployment() {
    assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.H2)
            .config("outbox.orders.relay", "rabbit")
            .start())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining("outbox.orders.relay=rabbit names no relay");
  }

  @Test
  void an_outboxed_type_naming_an_outbox_that_is_not_configured_fails_the_deployment() {
    assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.H2)
            .config("outbox.orders.relay", "recording")
            .beans(RecordingRelay.class, InvoiceSent.class)
            .start())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining(InvoiceSent.class.getName() + " is @Outboxed(\"invoices\") but no outbox of that name is"
            + " configured: set outbox.invoices.relay (configured: [orders])");
  }
}
