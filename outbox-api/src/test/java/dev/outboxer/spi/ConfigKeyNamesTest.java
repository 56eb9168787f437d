package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The names MicroProfile Config reports, mapped to the keys they stand for; the one "did you mean" rule. */
class ConfigKeyNamesTest {

  private static final List<String> PATTERNS = List.of("outbox.node-id", "outbox.worker", "outbox.worker.executor",
      "outbox.<name>.relay", "outbox.<name>.max-attempts", "outbox.<name>.poll-interval",
      "outbox.<name>.max-poll-interval", "outbox.<name>.batch-size", "outbox.<name>.jms.*", "outbox.health.*");

  @Test
  void the_environment_name_of_a_key_replaces_every_non_alphanumeric_character_and_upper_cases() {
    assertThat(ConfigKeyNames.environmentName("outbox.orders.max-attempts")).isEqualTo("OUTBOX_ORDERS_MAX_ATTEMPTS");
    assertThat(ConfigKeyNames.environmentName("outbox.node-id")).isEqualTo("OUTBOX_NODE_ID");
  }

  @Test
  void environment_names_and_their_smallrye_twins_resolve_to_the_keys_they_stand_for() {
    ConfigKeyNames.Resolved resolved = ConfigKeyNames.resolve(List.of("OUTBOX_ORDERS_RELAY", "outbox.orders.relay",
        "OUTBOX_ORDERS_MAX_ATTEMPTS", "outbox.orders.max.attempts", "OUTBOX_NODE_ID", "outbox.node.id",
        "OUTBOX_ORDERS_JMS_CONNECTION_FACTORY", "PATH", "HOME", "path"), PATTERNS);

    assertThat(resolved.keys()).containsExactlyInAnyOrder("outbox.orders.relay", "outbox.orders.max-attempts",
        "outbox.node-id", "outbox.orders.jms.CONNECTION_FACTORY");
    assertThat(resolved.written("outbox.orders.max-attempts")).isEqualTo("OUTBOX_ORDERS_MAX_ATTEMPTS");
    assertThat(resolved.written("outbox.orders.relay")).isEqualTo("outbox.orders.relay");
    assertThat(resolved.unmatched()).isEmpty();
  }

  @Test
  void under_a_prefix_the_smallrye_twin_is_kept_beside_the_variable_written_as_the_variable() {
    ConfigKeyNames.Resolved resolved = ConfigKeyNames.resolve(List.of("OUTBOX_ORDERS_RELAY", "outbox.orders.relay",
        "OUTBOX_ORDERS_JMS_CONNECTION_FACTORY", "outbox.orders.jms.connection.factory", "OUTBOX_HEALTH_WORKER_STAL",
        "outbox.health.worker.stal"), PATTERNS);

    assertThat(resolved.keys()).containsExactlyInAnyOrder("outbox.orders.relay", "outbox.orders.jms.CONNECTION_FACTORY",
        "outbox.orders.jms.connection.factory", "outbox.health.WORKER_STAL", "outbox.health.worker.stal");
    assertThat(resolved.written("outbox.orders.jms.connection.factory")).isEqualTo("OUTBOX_ORDERS_JMS_CONNECTION_FACTORY");
    assertThat(resolved.written("outbox.health.worker.stal")).isEqualTo("OUTBOX_HEALTH_WORKER_STAL");
  }

  @Test
  void an_outbox_name_takes_its_spelling_from_dotted_keys_and_is_lower_cased_otherwise() {
    ConfigKeyNames.Resolved resolved = ConfigKeyNames.resolve(List.of("outbox.my-orders.relay",
        "OUTBOX_MY_ORDERS_BATCH_SIZE", "OUTBOX_INVOICES_RELAY", "OUTBOX_INVOICES_BATCH_SIZE"), PATTERNS);

    assertThat(resolved.keys()).containsExactlyInAnyOrder("outbox.my-orders.relay", "outbox.my-orders.batch-size",
        "outbox.invoices.relay", "outbox.invoices.batch-size");
  }

  @Test
  void an_ambiguous_environment_name_goes_to_the_declared_outbox_then_to_the_longest_key() {
    ConfigKeyNames.Resolved resolved = ConfigKeyNames.resolve(List.of("OUTBOX_A_RELAY",
        "OUTBOX_A_MAX_POLL_INTERVAL", "OUTBOX_B_MAX_POLL_INTERVAL"), PATTERNS);

    assertThat(resolved.keys()).contains("outbox.a.max-poll-interval", "outbox.b.max-poll-interval");
  }

  @Test
  void a_misspelt_environment_name_is_unmatched_and_its_suggestion_is_shown_as_an_environment_name() {
    ConfigKeyNames.Resolved resolved = ConfigKeyNames.resolve(List.of("outbox.orders.relay",
        "OUTBOX_ORDERS_MAX_ATEMPTS", "outbox.orders.max.atempts"), PATTERNS);

    assertThat(resolved.unmatched()).containsExactly("OUTBOX_ORDERS_MAX_ATEMPTS");
    assertThat(resolved.keys()).containsExactly("outbox.orders.relay");
    assertThat(ConfigKeyNames.didYouMean("OUTBOX_ORDERS_MAX_ATEMPTS", Set.of("outbox.orders.max-attempts")))
        .isEqualTo(" Did you mean OUTBOX_ORDERS_MAX_ATTEMPTS?");
    assertThat(ConfigKeyNames.didYouMean("outbox.orders.max-atempts", Set.of("outbox.orders.max-attempts")))
        .isEqualTo(" Did you mean outbox.orders.max-attempts?");
  }

  @Test
  void a_misspelt_dotted_key_stays_as_written() {
    ConfigKeyNames.Resolved resolved = ConfigKeyNames.resolve(List.of("outbox.orders.relay",
        "outbox.orders.max.attempts"), PATTERNS);

    assertThat(resolved.keys()).contains("outbox.orders.max.attempts");
  }

  @Test
  void relay_settings_are_renamed_to_the_known_keys_the_key_spelt_as_known_winning() {
    Map<String, String> properties = Map.of("CONNECTION_FACTORY", "env", "connection.factory", "env",
        "destination", "sys", "DESTINATION", "env", "PRIORTY", "4", "priorty", "4");

    Map<String, String> canonical =
        ConfigKeyNames.canonicalProperties(properties, Set.of("connection-factory", "destination", "priority"));

    assertThat(canonical).containsExactlyInAnyOrderEntriesOf(
        Map.of("connection-factory", "env", "destination", "sys", "PRIORTY", "4"));
    assertThat(ConfigKeyNames.written("outbox.o.jms.PRIORTY", "PRIORTY")).isEqualTo("OUTBOX_O_JMS_PRIORTY");
  }

  @Test
  void the_suggestion_is_within_a_third_of_the_word_one_to_three_edits_a_swap_counting_once() {
    assertThat(ConfigKeyNames.nearest("jsm", Set.of("jms", "kafka"))).contains("jms");
    assertThat(ConfigKeyNames.nearest("sqs", Set.of("jms", "kafka"))).isEmpty();
    assertThat(ConfigKeyNames.distance("destinaton", "destination")).isEqualTo(1);
    assertThat(ConfigKeyNames.nearest("completely-different", Set.of("destination"))).isEmpty();
  }
}
