package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.OutboxConfigReader;
import dev.outboxer.spi.RelayContext;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.jms.DeliveryMode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: the jms relay configured by environment variables, read as a deployment reads
 * them: SmallRye Config with its real environment source, the core's reader building the relay's
 * context, the relay checking it.
 */
class JmsEnvironmentVariablesTest {

  private static RelayContext context(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> config.getOptionalValue(key, String.class),
        config.getPropertyNames(), Set.of("jms")).read();
    assertThat(result.problems()).as("the core's problems").isEmpty();
    assertThat(result.relayChecks()).hasSize(1);
    return result.relayChecks().get(0).context();
  }

  private static Map<String, String> env(String... keyValues) {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "jms", "PATH", "/usr/bin"));
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  @Test
  void every_jms_key_set_as_an_environment_variable_is_read() {
    RelayContext context = context(env(
        "OUTBOX_ORDERS_JMS_CONNECTION_FACTORY", "jms/cf",
        "OUTBOX_ORDERS_JMS_DESTINATION", "jms/orders",
        "OUTBOX_ORDERS_JMS_DELIVERY_MODE", "non-persistent",
        "OUTBOX_ORDERS_JMS_PRIORITY", "7",
        "OUTBOX_ORDERS_JMS_TIME_TO_LIVE", "30s"), Map.of(), Map.of());

    assertThat(JmsSettings.from(context)).isEqualTo(
        new JmsSettings(Optional.of("jms/cf"), "jms/orders", DeliveryMode.NON_PERSISTENT, 7, 30_000));
  }

  @Test
  void a_misspelt_jms_environment_variable_is_refused_as_written_with_the_suggestion() {
    RelayContext context = context(env(
        "OUTBOX_ORDERS_JMS_DESTINATION", "jms/orders",
        "OUTBOX_ORDERS_JMS_PRIORTY", "7"), Map.of(), Map.of());

    OutboxConfigurationException problem =
        catchThrowableOfType(OutboxConfigurationException.class, () -> JmsSettings.from(context));

    assertThat(problem).isNotNull();
    assertThat(problem.getSuppressed()).isEmpty();
    assertThat(problem.getMessage()).contains("OUTBOX_ORDERS_JMS_PRIORTY")
        .contains("Did you mean OUTBOX_ORDERS_JMS_PRIORITY?");
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.orders.jms.destination", "jms/file",
        "outbox.orders.jms.connection-factory", "jms/file-cf", "outbox.orders.jms.priority", "1");
    Map<String, String> env = env("OUTBOX_ORDERS_JMS_DESTINATION", "jms/env",
        "OUTBOX_ORDERS_JMS_CONNECTION_FACTORY", "jms/env-cf", "OUTBOX_ORDERS_JMS_PRIORITY", "2");
    Map<String, String> system = Map.of("outbox.orders.jms.priority", "3");

    JmsSettings settings = JmsSettings.from(context(env, file, system));

    assertThat(settings.destination()).as("environment over file").isEqualTo("jms/env");
    assertThat(settings.connectionFactory()).as("environment over file").contains("jms/env-cf");
    assertThat(settings.priority()).as("system property over environment").isEqualTo(3);
  }
}
