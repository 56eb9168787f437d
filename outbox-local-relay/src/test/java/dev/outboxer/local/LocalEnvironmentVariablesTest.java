package dev.outboxer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.OutboxConfigReader;
import dev.outboxer.spi.RelayContext;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: the local relay configured by environment variables, read as a deployment
 * reads them: SmallRye Config with its real environment source, the core's reader building the
 * relay's context, the relay reading it.
 */
class LocalEnvironmentVariablesTest {

  private static RelayContext context(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> config.getOptionalValue(key, String.class),
        config.getPropertyNames(), Set.of("local")).read();
    assertThat(result.problems()).as("the core's problems").isEmpty();
    assertThat(result.relayChecks()).hasSize(1);
    return result.relayChecks().get(0).context();
  }

  private static Map<String, String> env(String... keyValues) {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "local", "PATH", "/usr/bin"));
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  @Test
  void the_local_key_set_as_an_environment_variable_is_read() {
    List<OutboxConfigurationException> problems = new ArrayList<>();

    LocalSettings settings = LocalSettings.read(
        context(env("OUTBOX_ORDERS_LOCAL_HANDLER", "billing, shipping"), Map.of(), Map.of()), problems);

    assertThat(problems).isEmpty();
    assertThat(settings.handlerNames()).containsExactly("billing", "shipping");
  }

  @Test
  void a_misspelt_local_environment_variable_is_refused_as_written_with_the_suggestion() {
    List<OutboxConfigurationException> problems = new ArrayList<>();

    LocalSettings.read(context(env("OUTBOX_ORDERS_LOCAL_HANDLR", "billing"), Map.of(), Map.of()), problems);

    assertThat(problems).singleElement().satisfies(problem -> assertThat(problem.getMessage())
        .contains("OUTBOX_ORDERS_LOCAL_HANDLR").contains("Did you mean OUTBOX_ORDERS_LOCAL_HANDLER?"));
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.orders.local.handler", "fromFile");
    Map<String, String> env = env("OUTBOX_ORDERS_LOCAL_HANDLER", "fromEnv");
    List<OutboxConfigurationException> problems = new ArrayList<>();

    assertThat(LocalSettings.read(context(env, file, Map.of()), problems).handlerNames())
        .as("environment over file").containsExactly("fromEnv");
    assertThat(LocalSettings.read(context(env, file, Map.of("outbox.orders.local.handler", "fromSys")), problems)
        .handlerNames()).as("system property over environment").containsExactly("fromSys");
    assertThat(problems).isEmpty();
  }
}
