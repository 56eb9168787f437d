package dev.outboxer.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: outbox-health configured by environment variables, read from SmallRye Config
 * with its real environment source: every key read, a misspelt variable refused as written, and
 * system property &gt; environment &gt; file.
 */
class HealthEnvironmentVariablesTest {

  private static HealthSettings.Result read(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    return HealthSettings.read(new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build());
  }

  private static Map<String, String> env(String... keyValues) {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "jms", "HOME", "/root"));
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  @Test
  void every_health_key_set_as_an_environment_variable_is_read() {
    HealthSettings.Result result = read(env(
        "OUTBOX_HEALTH_WORKER_STALL", "2m",
        "OUTBOX_HEALTH_REFRESH_INTERVAL", "3s",
        "OUTBOX_HEALTH_LONG_TRANSACTION", "90s",
        "OUTBOX_ORDERS_HEALTH_MAX_LAG", "10m",
        "OUTBOX_ORDERS_RELAY_TIMEOUT", "20s",
        "OUTBOX_ORDERS_POLL_INTERVAL", "1s",
        "OUTBOX_ORDERS_MAX_POLL_INTERVAL", "8s"), Map.of(), Map.of());

    assertThat(result.problems()).isEmpty();
    assertThat(result.settings().outboxes()).containsExactly("orders");
    assertThat(result.settings().refreshInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(result.settings().longTransaction()).isEqualTo(Duration.ofSeconds(90));
    assertThat(result.settings().workerStall()).containsEntry("orders", Duration.ofMinutes(2));
    assertThat(result.settings().maxLag()).containsEntry("orders", Duration.ofMinutes(10));
  }

  @Test
  void a_misspelt_health_environment_variable_is_refused_as_written_with_the_suggestion() {
    HealthSettings.Result result = read(env("OUTBOX_HEALTH_WORKER_STAL", "2m", "OUTBOX_ORDERS_HEALTH_MAX_LAGG", "1m"),
        Map.of(), Map.of());

    assertThat(result.problems()).extracting(OutboxConfigurationException::getMessage)
        .hasSize(2)
        .anySatisfy(message -> assertThat(message).contains("OUTBOX_HEALTH_WORKER_STAL")
            .contains("Did you mean OUTBOX_HEALTH_WORKER_STALL?"))
        .anySatisfy(message -> assertThat(message).contains("OUTBOX_ORDERS_HEALTH_MAX_LAGG")
            .contains("Did you mean OUTBOX_ORDERS_HEALTH_MAX_LAG?"));
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.health.refresh-interval", "1s", "outbox.orders.health.max-lag", "1m");
    Map<String, String> env = env("OUTBOX_HEALTH_REFRESH_INTERVAL", "2s", "OUTBOX_ORDERS_HEALTH_MAX_LAG", "2m");
    Map<String, String> system = Map.of("outbox.orders.health.max-lag", "3m");

    HealthSettings.Result result = read(env, file, system);

    assertThat(result.problems()).isEmpty();
    assertThat(result.settings().refreshInterval()).as("environment over file").isEqualTo(Duration.ofSeconds(2));
    assertThat(result.settings().maxLag()).as("system property over environment")
        .containsEntry("orders", Duration.ofMinutes(3));
  }
}
