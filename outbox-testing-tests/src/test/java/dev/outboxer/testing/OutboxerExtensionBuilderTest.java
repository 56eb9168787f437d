package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A builder that lacks what the extension needs says what to add. */
class OutboxerExtensionBuilderTest {

  @Test
  void a_builder_without_a_database_names_jdbcUrl() {
    assertThatThrownBy(() -> OutboxerExtension.builder().outbox("orders").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(".jdbcUrl(");
  }

  @Test
  void a_builder_without_an_outbox_names_outbox() {
    assertThatThrownBy(() -> OutboxerExtension.builder().jdbcUrl("jdbc:h2:mem:none").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(".outbox(\"orders\")");
  }

  @Test
  void a_database_without_a_known_xa_data_source_asks_for_its_class() {
    assertThatThrownBy(() -> OutboxerExtension.builder().jdbcUrl("jdbc:oracle:thin:@//db:1521/x").outbox("o").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("XADataSource");
    assertThat(OutboxerExtension.builder().jdbcUrl("jdbc:oracle:thin:@//db:1521/x").outbox("o")
        .xaDataSourceClass("oracle.jdbc.xa.client.OracleXADataSource").build()).isNotNull();
  }

  @Test
  void the_outboxes_are_the_ones_with_a_relay_key_and_outbox_defaults_yield_to_config_keys() {
    OutboxerExtension extension = OutboxerExtension.builder().jdbcUrl("jdbc:h2:mem:none")
        .config("outbox.orders.poll-interval", "2s")
        .outbox("orders")
        .config("outbox.audit.relay", "recording")
        .config("outbox.worker", "none")
        .build();

    assertThat(extension.outboxes()).containsExactlyInAnyOrder("orders", "audit");
    assertThat(extension.config())
        .containsEntry("outbox.orders.relay", "recording")
        .containsEntry("outbox.orders.poll-interval", "2s")
        .containsEntry("outbox.orders.max-poll-interval", OutboxerExtension.DEFAULT_POLL_INTERVAL)
        .containsEntry("outbox.worker", "none")
        .doesNotContainKey("outbox.audit.poll-interval");
  }

  @Test
  void a_pool_needs_a_connection() {
    assertThatThrownBy(() -> OutboxerExtension.builder().poolSize(0)).hasMessageContaining("at least one");
  }
}
