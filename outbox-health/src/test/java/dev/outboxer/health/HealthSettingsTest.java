package dev.outboxer.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The settings as read from a real MicroProfile Config: defaults, derived stall times, and every problem named. */
class HealthSettingsTest {

  private static HealthSettings.Result read(String... keyValues) {
    Map<String, String> properties = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      properties.put(keyValues[i], keyValues[i + 1]);
    }
    return HealthSettings.read(new SmallRyeConfigBuilder()
        .withSources(new PropertiesConfigSource(properties, "test", 500)).build());
  }

  private static List<String> problems(HealthSettings.Result result) {
    return result.problems().stream().map(OutboxConfigurationException::getMessage).toList();
  }

  @Test
  void without_health_keys_every_outbox_gets_the_default_stall_time_and_no_lag_threshold() {
    HealthSettings settings = read("outbox.orders.relay", "jms", "outbox.audit.relay", "kafka").settings();

    assertThat(settings.outboxes()).containsExactly("audit", "orders");
    assertThat(settings.workerStall()).containsEntry("orders", Duration.ofSeconds(60))
        .containsEntry("audit", Duration.ofSeconds(60));
    assertThat(settings.refreshInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.maxLag()).isEmpty();
  }

  @Test
  void the_default_stall_time_is_raised_above_a_long_relay_timeout_plus_the_idle_poll() {
    HealthSettings settings = read("outbox.orders.relay", "jms", "outbox.orders.relay-timeout", "2m",
        "outbox.orders.transaction-timeout", "5m", "outbox.orders.max-poll-interval", "20s",
        "outbox.audit.relay", "kafka").settings();

    assertThat(settings.workerStall()).containsEntry("orders", Duration.ofSeconds(120 + 20 + 10))
        .containsEntry("audit", Duration.ofSeconds(60));
  }

  @Test
  void configured_values_are_read_in_every_spelling_the_core_accepts() {
    HealthSettings settings = read("outbox.orders.relay", "jms", "outbox.orders.relay-timeout", "1s",
        "outbox.orders.max-poll-interval", "500ms", "outbox.health.worker-stall", "PT2S",
        "outbox.health.refresh-interval", "750ms", "outbox.orders.health.max-lag", "5m").settings();

    assertThat(settings.workerStall()).containsEntry("orders", Duration.ofSeconds(2));
    assertThat(settings.refreshInterval()).isEqualTo(Duration.ofMillis(750));
    assertThat(settings.maxLag()).containsEntry("orders", Duration.ofMinutes(5));
  }

  @Test
  void a_value_that_is_no_duration_is_reported_with_its_key_its_value_and_the_accepted_forms() {
    HealthSettings.Result result = read("outbox.orders.relay", "jms", "outbox.health.worker-stall", "ten seconds",
        "outbox.orders.health.max-lag", "-5s", "outbox.health.refresh-interval", "0s");

    assertThat(result.settings()).isNull();
    assertThat(result.problems()).extracting(OutboxConfigurationException::key).containsExactlyInAnyOrder(
        "outbox.health.worker-stall", "outbox.orders.health.max-lag", "outbox.health.refresh-interval");
    assertThat(problems(result)).anySatisfy(message -> assertThat(message)
        .contains("outbox.health.worker-stall=ten seconds", "not a duration", "30s", "PT30S"));
    assertThat(problems(result)).anySatisfy(message -> assertThat(message)
        .contains("outbox.orders.health.max-lag=-5s", "not a duration"));
    assertThat(problems(result)).anySatisfy(message -> assertThat(message)
        .contains("outbox.health.refresh-interval=0s", "must be longer than zero"));
  }

  @Test
  void a_stall_time_a_healthy_worker_can_reach_is_refused_naming_the_keys_it_collides_with() {
    HealthSettings.Result result = read("outbox.orders.relay", "jms", "outbox.health.worker-stall", "20s");

    assertThat(result.settings()).isNull();
    assertThat(problems(result)).singleElement().asString().contains("outbox.health.worker-stall=20s",
        "outbox.orders.relay-timeout (30s)", "outbox.orders.max-poll-interval (5s)", "= 35s", "Raise");
  }

  @Test
  void keys_of_outboxes_that_do_not_exist_and_misspelt_keys_are_reported() {
    HealthSettings.Result result = read("outbox.orders.relay", "jms", "outbox.ordres.health.max-lag", "1m",
        "outbox.orders.health.max-lagg", "1m", "outbox.health.worker-stal", "90s");

    assertThat(problems(result)).hasSize(3);
    assertThat(problems(result)).anySatisfy(message -> assertThat(message)
        .contains("outbox.ordres.health.max-lag", "no outbox 'ordres' exists", "[orders]"));
    assertThat(problems(result)).anySatisfy(message -> assertThat(message)
        .contains("outbox.orders.health.max-lagg", "Did you mean outbox.orders.health.max-lag?"));
    assertThat(problems(result)).anySatisfy(message -> assertThat(message)
        .contains("outbox.health.worker-stal", "Did you mean outbox.health.worker-stall?"));
  }

  @Test
  void the_catalog_lists_the_global_and_the_per_outbox_keys_and_is_found_by_service_loader() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(HealthSettingsCatalog.class);
    List<SettingsDeclaration> declarations = new HealthSettingsCatalog().declarations();

    assertThat(declarations).extracting(SettingsDeclaration::prefix)
        .containsExactly("outbox.health.", "outbox.<name>.health.");
    assertThat(declarations).flatExtracting(SettingsDeclaration::keyPatterns).containsExactly(
        "outbox.health.worker-stall", "outbox.health.refresh-interval", "outbox.health.long-transaction",
        "outbox.<name>.health.max-lag");
    assertThat(declarations).flatExtracting(SettingsDeclaration::settings)
        .allSatisfy(setting -> assertThat(setting.meaning()).isNotBlank());
  }

  @Test
  void an_outbox_named_health_is_refused_because_the_name_holds_these_settings() {
    HealthSettings.Result result = read("outbox.health.relay", "jms");

    assertThat(problems(result)).singleElement().asString().contains("outbox.health.relay", "another name");
  }
}
