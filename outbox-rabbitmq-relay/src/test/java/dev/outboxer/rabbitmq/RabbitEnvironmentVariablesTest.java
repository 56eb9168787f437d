package dev.outboxer.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.OutboxConfigReader;
import dev.outboxer.spi.RelayContext;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rabbitmq relay configured by environment variables, read as a deployment reads them:
 * SmallRye Config with its real environment source, the core's reader building the relay's
 * context, the relay checking it.
 */
class RabbitEnvironmentVariablesTest {

  private static RelayContext context(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> config.getOptionalValue(key, String.class),
        config.getPropertyNames(), Set.of("rabbitmq")).read();
    assertThat(result.problems()).as("the core's problems").isEmpty();
    assertThat(result.relayChecks()).hasSize(1);
    return result.relayChecks().get(0).context();
  }

  private static Map<String, String> env(String... keyValues) {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "rabbitmq",
        "OUTBOX_ORDERS_RELAY_TIMEOUT", "40s", "PATH", "/usr/bin"));
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  @Test
  void every_rabbitmq_key_set_as_an_environment_variable_is_read() {
    RabbitSettings settings = RabbitSettings.from(context(env(
        "OUTBOX_ORDERS_RABBITMQ_HOST", "rabbit.internal",
        "OUTBOX_ORDERS_RABBITMQ_PORT", "5673",
        "OUTBOX_ORDERS_RABBITMQ_VIRTUAL_HOST", "shop",
        "OUTBOX_ORDERS_RABBITMQ_USERNAME", "orders",
        "OUTBOX_ORDERS_RABBITMQ_PASSWORD", "secret",
        "OUTBOX_ORDERS_RABBITMQ_EXCHANGE", "orders-events",
        "OUTBOX_ORDERS_RABBITMQ_ROUTING_KEY", "all",
        "OUTBOX_ORDERS_RABBITMQ_MANDATORY", "false",
        "OUTBOX_ORDERS_RABBITMQ_PERSISTENT", "false",
        "OUTBOX_ORDERS_RABBITMQ_MAX_MESSAGE_SIZE", "1MB",
        "OUTBOX_ORDERS_RABBITMQ_CONFIRM_TIMEOUT", "20s",
        "OUTBOX_ORDERS_RABBITMQ_CONNECTION_TIMEOUT", "2s",
        "OUTBOX_ORDERS_RABBITMQ_CONNECTION_NAME", "orders-relay"), Map.of(), Map.of()));

    assertThat(settings.host()).isEqualTo("rabbit.internal");
    assertThat(settings.port()).isEqualTo(5673);
    assertThat(settings.virtualHost()).isEqualTo("shop");
    assertThat(settings.username()).isEqualTo("orders");
    assertThat(settings.password()).isEqualTo("secret");
    assertThat(settings.exchange()).isEqualTo("orders-events");
    assertThat(settings.routingKey()).contains("all");
    assertThat(settings.mandatory()).isFalse();
    assertThat(settings.persistent()).isFalse();
    assertThat(settings.maxMessageSize()).isEqualTo(1024 * 1024);
    assertThat(settings.confirmTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(settings.connectionTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.connectionName()).isEqualTo("orders-relay");
  }

  @Test
  void a_misspelt_rabbitmq_environment_variable_is_refused_as_written_with_the_suggestion() {
    RelayContext context = context(env(
        "OUTBOX_ORDERS_RABBITMQ_EXCHANGE", "orders",
        "OUTBOX_ORDERS_RABBITMQ_CONFIRM_TIMEOT", "5s"), Map.of(), Map.of());

    OutboxConfigurationException problem =
        catchThrowableOfType(OutboxConfigurationException.class, () -> RabbitSettings.from(context));

    assertThat(problem).isNotNull();
    assertThat(problem.getSuppressed()).isEmpty();
    assertThat(problem.getMessage()).contains("OUTBOX_ORDERS_RABBITMQ_CONFIRM_TIMEOT")
        .contains("Did you mean OUTBOX_ORDERS_RABBITMQ_CONFIRM_TIMEOUT?");
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.orders.rabbitmq.exchange", "file",
        "outbox.orders.rabbitmq.host", "file-host", "outbox.orders.rabbitmq.port", "1");
    Map<String, String> env = env("OUTBOX_ORDERS_RABBITMQ_EXCHANGE", "env", "OUTBOX_ORDERS_RABBITMQ_PORT", "2");
    Map<String, String> system = Map.of("outbox.orders.rabbitmq.port", "3");

    RabbitSettings settings = RabbitSettings.from(context(env, file, system));

    assertThat(settings.exchange()).as("environment over file").isEqualTo("env");
    assertThat(settings.host()).as("file only").isEqualTo("file-host");
    assertThat(settings.port()).as("system property over environment").isEqualTo(3);
  }
}
