package dev.outboxer.cdi.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/**
 * Regression tests of issue 11 ("What happens today" 8; "Deliver" 6): configuration that is
 * blank, misspelt, overflowing or impossible fails the deployment with an {@link
 * OutboxConfigurationException} naming the key and the value; it is never silently skipped and
 * never surfaces as a raw exception.
 */
class ConfigurationRegressionTest {

  /** How a message offers the nearest known name. */
  private static final String SUGGESTION = "(?i)did you mean|nearest|closest|perhaps";

  /** The reader as the deployment runs it: an empty value counts as not set, as in SmallRye Config. */
  private static OutboxConfigReader.Result read(Map<String, String> config) {
    return new OutboxConfigReader(key -> Optional.ofNullable(config.get(key)).filter(v -> !v.isEmpty()),
        config.keySet()).read();
  }

  private static Map<String, String> orders(String... keyValues) {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.orders.relay", "jms");
    for (int i = 0; i < keyValues.length; i += 2) {
      config.put(keyValues[i], keyValues[i + 1]);
    }
    return config;
  }

  private static OutboxConfigurationException problem(OutboxConfigReader.Result result, String key) {
    assertThat(result.problems()).as("problems reported").extracting(OutboxConfigurationException::key).contains(key);
    return result.problems().stream().filter(p -> p.key().equals(key)).findFirst().orElseThrow();
  }

  @Test
  void a_blank_relay_while_other_keys_of_the_outbox_are_set_is_an_error_naming_the_relay_key() {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.orders.relay", "");
    config.put("outbox.orders.partitions", "4");

    OutboxConfigurationException problem = problem(read(config), "outbox.orders.relay");
    assertThat(problem.getMessage()).contains("outbox.orders.relay").containsAnyOf("blank", "empty", "not set");
  }

  @Test
  void a_misspelt_relay_name_is_refused_listing_the_known_relays_and_suggesting_the_nearest() {
    Throwable failure = catchThrowable(() -> OutboxTestContainer.builder(TestDatabase.H2)
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "jsm")
        .config("outbox.orders.jms.destination", "jms/orders")
        .beans(JmsLikeProvider.class, RecordingRelay.class)
        .start()
        .close());

    assertThat(failure).as("the deployment fails").isNotNull();
    List<OutboxConfigurationException> problems = configurationProblems(failure);
    assertThat(problems).extracting(OutboxConfigurationException::key)
        .as("keys complained about").contains("outbox.orders.relay").doesNotContain("outbox.orders.jms.destination");
    String message = problems.stream().filter(p -> p.key().equals("outbox.orders.relay")).findFirst().orElseThrow()
        .getMessage();
    assertThat(message).contains("outbox.orders.relay=jsm").contains("recording").containsPattern(SUGGESTION);
    // Once in the list of known relays, once as the suggestion.
    assertThat(message.split("jms", -1).length - 1).as("mentions of 'jms' in: " + message).isGreaterThanOrEqualTo(2);
  }

  @Test
  void a_misspelt_outbox_key_suggests_the_nearest_known_key() {
    OutboxConfigurationException problem = problem(read(orders("outbox.orders.partiton", "4")), "outbox.orders.partiton");
    assertThat(problem.getMessage()).contains("outbox.orders.partitions").containsPattern(SUGGESTION);
  }

  @Test
  void a_backoff_max_that_overflows_a_duration_is_a_clear_error_not_an_arithmetic_exception() {
    Map<String, String> config = orders("outbox.orders.backoff.max", "106751991167301d");
    assertThatCode(() -> read(config)).doesNotThrowAnyException();

    OutboxConfigurationException problem = problem(read(config), "outbox.orders.backoff.max");
    assertThat(problem.getMessage()).contains("outbox.orders.backoff.max=106751991167301d");
  }

  @Test
  void a_backoff_max_whose_milliseconds_overflow_is_refused_with_the_allowed_range() {
    // Fits a Duration (seconds) but not its toMillis(): today it is accepted and breaks at start-up.
    Map<String, String> config = orders("outbox.orders.backoff.max", "106751991167300d");
    assertThatCode(() -> read(config)).doesNotThrowAnyException();

    OutboxConfigurationException problem = problem(read(config), "outbox.orders.backoff.max");
    assertThat(problem.getMessage()).contains("outbox.orders.backoff.max=106751991167300d");
  }

  @Test
  void a_relay_timeout_longer_than_the_transaction_timeout_is_refused_naming_both_keys() {
    OutboxConfigurationException problem = problem(read(orders("outbox.orders.relay-timeout", "200000d")),
        "outbox.orders.relay-timeout");
    assertThat(problem.getMessage()).contains("outbox.orders.relay-timeout=200000d")
        .contains("outbox.orders.transaction-timeout");
  }

  @Test
  void a_relay_timeout_equal_to_the_default_transaction_timeout_of_60s_does_not_fit_inside_it() {
    OutboxConfigurationException problem = problem(read(orders("outbox.orders.relay-timeout", "60s")),
        "outbox.orders.relay-timeout");
    assertThat(problem.getMessage()).contains("outbox.orders.transaction-timeout");
  }

  @Test
  void the_transaction_timeout_is_a_known_key_and_a_relay_timeout_well_inside_it_is_accepted() {
    OutboxConfigReader.Result result = read(orders("outbox.orders.transaction-timeout", "120s",
        "outbox.orders.relay-timeout", "30s"));
    assertThat(result.problems()).as("problems").isEmpty();
  }

  /** Every OutboxConfigurationException in a failure: its causes and suppressed exceptions, recursively. */
  static List<OutboxConfigurationException> configurationProblems(Throwable failure) {
    List<OutboxConfigurationException> found = new ArrayList<>();
    Set<Throwable> visited = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> queue = new ArrayList<>(List.of(failure));
    while (!queue.isEmpty()) {
      Throwable next = queue.remove(0);
      if (next == null || !visited.add(next)) {
        continue;
      }
      if (next instanceof OutboxConfigurationException problem) {
        found.add(problem);
      }
      queue.add(next.getCause());
      queue.addAll(List.of(next.getSuppressed()));
    }
    return found;
  }

  /** A relay provider named like the JMS module's, whose only setting is a destination. */
  @ApplicationScoped
  public static class JmsLikeProvider implements RelayProvider {
    @Override
    public String name() {
      return "jms";
    }

    @Override
    public void validate(RelayContext context) {
      context.requiredProperty("jms", "destination");
    }

    @Override
    public Relay create(RelayContext context) {
      return batch -> batch.records().forEach(batch::confirm);
    }
  }
}
