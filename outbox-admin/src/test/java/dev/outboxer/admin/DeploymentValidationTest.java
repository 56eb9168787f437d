package dev.outboxer.admin;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** A bad admin setting fails the deployment, naming the key, before any call is answered. */
class DeploymentValidationTest {

  @Test
  void a_misspelt_admin_key_and_a_blank_role_fail_the_deployment_naming_the_key() {
    assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.H2)
        .config("outbox.orders.relay", "recording")
        .config("outbox.admin.roles", "ops")
        .config("outbox.admin.role", "  ")
        .beans(RecordingRelay.class)
        .start().close())
        .hasStackTraceContaining("outbox.admin.roles is not a setting of the admin API. Did you mean"
            + " outbox.admin.role? Known keys under outbox.admin.: [role]")
        .hasStackTraceContaining("outbox.admin.role=   is blank: remove the key for the default (outbox-admin)");
  }
}
