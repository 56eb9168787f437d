package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxMessage;
import dev.outboxer.UnknownOutboxException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Outboxer in the extension sees the builder's keys only, not the microprofile-config.properties of
 * this module's test class path (which declares the outbox {@code ghost} and turns workers off).
 */
class ConfigurationIsolationTest {

  @RegisterExtension
  static OutboxerExtension outboxer = OutboxerExtension.builder()
      .jdbcUrl("jdbc:h2:mem:testkit_isolation;DB_CLOSE_DELAY=-1")
      .outbox("shipments")
      .build();

  /** A message of no outbox in particular. */
  record Note(String text) implements OutboxMessage {}

  @Test
  void an_outbox_of_the_class_paths_configuration_does_not_exist(Outbox outbox) {
    assertThatThrownBy(() -> outboxer.inTransaction(() -> outbox.publish("ghost", new Note("boo"))))
        .isInstanceOf(UnknownOutboxException.class);
  }

  @Test
  void the_workers_run_though_the_class_paths_configuration_says_none(OutboxAdmin admin) {
    assertThat(admin.started()).isTrue();
    assertThat(admin.workers()).extracting(dev.outboxer.WorkerStatus::outbox).contains("shipments");
  }
}
