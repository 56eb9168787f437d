package dev.outboxer.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: outbox-admin configured by environment variables, read from SmallRye Config
 * with its real environment source: its key read, a misspelt variable refused as written, and
 * system property &gt; environment &gt; file.
 */
class AdminEnvironmentVariablesTest {

  private static SmallRyeConfig config(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    return new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
  }

  private static List<OutboxConfigurationException> problems(SmallRyeConfig config) {
    return AdminExtension.problems(key -> config.getOptionalValue(key, String.class), config.getPropertyNames());
  }

  private static String role(SmallRyeConfig config) {
    return AdminSettings.reader(key -> config.getOptionalValue(key, String.class), config.getPropertyNames())
        .get(AdminSettingsCatalog.ROLE);
  }

  @Test
  void the_admin_key_set_as_an_environment_variable_is_read() {
    SmallRyeConfig config = config(Map.of("OUTBOX_ADMIN_ROLE", "ops", "OUTBOX_ORDERS_RELAY", "jms", "PATH", "/bin"),
        Map.of(), Map.of());

    assertThat(problems(config)).isEmpty();
    assertThat(role(config)).isEqualTo("ops");
  }

  @Test
  void a_misspelt_admin_environment_variable_is_refused_as_written_with_the_suggestion() {
    SmallRyeConfig config = config(Map.of("OUTBOX_ADMIN_ROEL", "ops"), Map.of(), Map.of());

    assertThat(problems(config)).singleElement().satisfies(problem -> assertThat(problem.getMessage())
        .contains("OUTBOX_ADMIN_ROEL").contains("Did you mean OUTBOX_ADMIN_ROLE?"));
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.admin.role", "fromFile");
    Map<String, String> env = Map.of("OUTBOX_ADMIN_ROLE", "fromEnv");

    assertThat(role(config(env, file, Map.of()))).as("environment over file").isEqualTo("fromEnv");
    assertThat(role(config(env, file, Map.of("outbox.admin.role", "fromSys")))).as("system property over environment")
        .isEqualTo("fromSys");
    assertThat(problems(config(env, file, Map.of("outbox.admin.role", "fromSys")))).isEmpty();
  }
}
