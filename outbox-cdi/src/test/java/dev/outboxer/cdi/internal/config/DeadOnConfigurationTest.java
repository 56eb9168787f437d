package dev.outboxer.cdi.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 30, item 3: {@code outbox.<name>.dead-on} lists exception classes whose failures are
 * permanent. Every bad value is one problem naming the key and the value at deployment (a class
 * that is not on the class path too: a misspelt class would otherwise never match, silently); the
 * environment-variable form is read like the key.
 */
class DeadOnConfigurationTest {

  private static OutboxConfigReader.Result read(String deadOn) {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.orders.relay", "jms");
    config.put("outbox.orders.dead-on", deadOn);
    return new OutboxConfigReader(key -> Optional.ofNullable(config.get(key)).filter(v -> !v.isEmpty()),
        config.keySet()).read();
  }

  @Test
  void classes_subclasses_and_nested_classes_are_read_in_their_order_without_spaces() {
    OutboxConfigReader.Result result = read(" java.io.IOException , java.util.NoSuchElementException,"
        + DeadOnConfigurationTest.Refused.class.getName());

    assertThat(result.problems()).as("problems").isEmpty();
    assertThat(result.configuration().require("orders").deadOn()).containsExactly("java.io.IOException",
        "java.util.NoSuchElementException", "dev.outboxer.cdi.internal.config.DeadOnConfigurationTest$Refused");
  }

  @Test
  void without_the_key_no_failure_is_permanent_by_class() {
    Map<String, String> config = Map.of("outbox.orders.relay", "jms");
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> Optional.ofNullable(config.get(key)),
        config.keySet()).read();

    assertThat(result.problems()).isEmpty();
    assertThat(result.configuration().require("orders").deadOn()).isEmpty();
  }

  @ParameterizedTest(name = "dead-on=''{0}''")
  @CsvSource(delimiter = '|', ignoreLeadingAndTrailingWhitespace = false, value = {
      // value | what the message says
      "   |is blank: remove the key for the default (none) or give it a value",
      "java.io.IOException,,java.lang.IllegalStateException|has an empty element",
      "java.io.IOException, |has an empty element",
      "java.io.IOException,not a class|has 'not a class', which is not a fully-qualified class name",
      "java.io.IOException;java.lang.IllegalStateException|which is not a fully-qualified class name",
      "com.acme..Refused|has 'com.acme..Refused', which is not a fully-qualified class name",
      "java.io.IOExceptoin|names no class on the application's class path: java.io.IOExceptoin",
      "java.lang.String|java.lang.String is not an exception class (not a java.lang.Throwable)",
  })
  void a_bad_value_is_one_problem_naming_the_key_and_the_value(String value, String rule) {
    List<OutboxConfigurationException> problems = read(value).problems();

    assertThat(problems).as("problems").hasSize(1);
    assertThat(problems.get(0).key()).isEqualTo("outbox.orders.dead-on");
    assertThat(problems.get(0).getMessage()).startsWith("outbox.orders.dead-on=").contains(value.trim())
        .contains(rule);
  }

  @Test
  void the_environment_variable_form_is_read_like_the_key() {
    SmallRyeConfig config = new SmallRyeConfigBuilder().withSources(new EnvConfigSource(Map.of(
        "OUTBOX_ORDERS_RELAY", "jms",
        "OUTBOX_ORDERS_DEAD_ON", "java.io.IOException,java.util.NoSuchElementException"), 300)).build();
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> config.getOptionalValue(key, String.class),
        config.getPropertyNames(), Set.of("jms")).read();

    assertThat(result.problems()).as("problems").isEmpty();
    assertThat(result.configuration().require("orders").deadOn()).containsExactly("java.io.IOException",
        "java.util.NoSuchElementException");
  }

  @Test
  void a_bad_environment_variable_is_refused_naming_the_key_as_every_core_key_is() {
    SmallRyeConfig config = new SmallRyeConfigBuilder().withSources(new EnvConfigSource(Map.of(
        "OUTBOX_ORDERS_RELAY", "jms", "OUTBOX_ORDERS_DEAD_ON", "java.io.NoSuchException"), 300)).build();
    List<OutboxConfigurationException> problems = new OutboxConfigReader(
        key -> config.getOptionalValue(key, String.class), config.getPropertyNames(), Set.of("jms")).read().problems();

    assertThat(problems).hasSize(1);
    assertThat(problems.get(0).getMessage()).startsWith("outbox.orders.dead-on=java.io.NoSuchException")
        .contains("names no class");
  }

  /** A nested exception class, named with its binary name. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }
}
