package dev.outboxer.cdi.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every configuration value is validated, and every problem names the key and the value. */
class OutboxConfigReaderTest {

  private static OutboxConfigReader.Result read(Map<String, String> config) {
    return new OutboxConfigReader(key -> Optional.ofNullable(config.get(key)).filter(v -> !v.isEmpty()), config.keySet()).read();
  }

  private static Map<String, String> orders(String... keyValues) {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.orders.relay", "jms");
    for (int i = 0; i < keyValues.length; i += 2) {
      config.put(keyValues[i], keyValues[i + 1]);
    }
    return config;
  }

  @Test
  void an_outbox_exists_when_its_relay_is_set_and_takes_the_documented_defaults() {
    OutboxConfiguration configuration = read(orders()).orThrow();

    OutboxSettings settings = configuration.require("orders");
    assertThat(settings.relay()).isEqualTo("jms");
    assertThat(settings.ordering()).isEqualTo(Ordering.GROUP);
    assertThat(settings.partitions()).isEqualTo(1);
    assertThat(settings.unlimitedAttempts()).isTrue();
    assertThat(settings.backoffMin()).isEqualTo(Duration.ofSeconds(1));
    assertThat(settings.backoffMax()).isEqualTo(Duration.ofSeconds(60));
    assertThat(settings.serializeWrites()).isFalse();
    assertThat(settings.batchSize()).isEqualTo(100);
    assertThat(settings.pollInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.maxPollInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.relayTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.deadRetention()).as("dead-retention: off, dead messages are kept").isNull();
    assertThat(settings.retentionInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(configuration.workerMode()).isEqualTo(WorkerMode.EXECUTOR);
  }

  @Test
  void every_key_is_read_and_relay_keys_are_handed_to_the_relay_without_their_prefix() {
    OutboxSettings settings = read(orders(
        "outbox.orders.ordering", "none",
        "outbox.orders.partitions", "8",
        "outbox.orders.max-attempts", "10",
        "outbox.orders.backoff.min", "500ms",
        "outbox.orders.backoff.max", "PT30S",
        "outbox.orders.serialize-writes", "true",
        "outbox.orders.batch-size", "250",
        "outbox.orders.poll-interval", "2s",
        "outbox.orders.max-poll-interval", "1m",
        "outbox.orders.relay-timeout", "45s",
        "outbox.orders.jms.destination", "jms/orders",
        "outbox.worker", "ejb-timer")).orThrow().require("orders");

    assertThat(settings.ordering()).isEqualTo(Ordering.NONE);
    assertThat(settings.partitions()).isEqualTo(8);
    assertThat(settings.maxAttempts()).isEqualTo(10);
    assertThat(settings.backoffMin()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.backoffMax()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.serializeWrites()).isTrue();
    assertThat(settings.batchSize()).isEqualTo(250);
    assertThat(settings.pollInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.maxPollInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(settings.relayTimeout()).isEqualTo(Duration.ofSeconds(45));
    assertThat(settings.relayProperties()).containsExactly(Map.entry("destination", "jms/orders"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "outbox.orders.ordering       | random   | is not an ordering mode: use group, total or none",
      "outbox.orders.partitions     | 0        | is out of range: use a number from 1 to 1024",
      "outbox.orders.partitions     | four     | is not a number",
      "outbox.orders.max-attempts   | 0        | must be at least 1, or 'infinity' to retry forever",
      "outbox.orders.max-attempts   | never    | is not a number: use a positive number, or 'infinity'",
      "outbox.orders.backoff.min    | 10       | is not a duration: expected a number with a unit",
      "outbox.orders.backoff.max    | 5 parsecs| is not a duration",
      "outbox.orders.backoff.min    | PTXS     | is not a duration: not a valid ISO-8601 duration",
      "outbox.orders.backoff.min    | 0s       | must be longer than zero",
      "outbox.orders.serialize-writes | yes    | is not a boolean: use true or false",
      "outbox.orders.batch-size     | 0        | is out of range",
      "outbox.orders.poll-interval  | soon     | is not a duration",
      "outbox.orders.relay-timeout  | -5s      | is not a duration",
      "outbox.worker                | threads  | is not a worker mode: use executor, ejb-timer or none",
      "outbox.database              | oracle   | is not a supported database",
      "outbox.orders.partiton       | 4        | is not a key Outboxer knows",
      "outbox.invoices.partitions   | 4        | but no outbox 'invoices' exists: an outbox exists when outbox.invoices.relay is set",
  })
  void a_bad_value_is_reported_with_its_key_and_value(String key, String value, String rule) {
    OutboxConfigurationException problem = onlyProblem(read(orders(key, value)));

    assertThat(problem.key()).isEqualTo(key);
    assertThat(problem.getMessage()).startsWith(key + (key.endsWith("partiton") || key.startsWith("outbox.invoices") ? "" : "=" + value))
        .contains(rule);
  }

  @Test
  void a_minimum_backoff_above_the_maximum_is_refused_naming_both() {
    OutboxConfigurationException problem = onlyProblem(read(orders("outbox.orders.backoff.min", "2m", "outbox.orders.backoff.max", "30s")));

    assertThat(problem.key()).isEqualTo("outbox.orders.backoff.min");
    assertThat(problem.getMessage()).isEqualTo("outbox.orders.backoff.min=2m is greater than outbox.orders.backoff.max=30s:"
        + " the first retry delay cannot exceed the longest one");
  }

  @Test
  void total_ordering_with_several_partitions_is_refused_rather_than_silently_forced_to_one() {
    OutboxConfigurationException problem = onlyProblem(read(orders("outbox.orders.ordering", "total", "outbox.orders.partitions", "4")));

    assertThat(problem.key()).isEqualTo("outbox.orders.partitions");
    assertThat(problem.getMessage()).contains("outbox.orders.partitions=4 contradicts outbox.orders.ordering=total");
  }

  @Test
  void all_problems_are_reported_at_once() {
    List<OutboxConfigurationException> problems = read(orders("outbox.orders.partitions", "-1", "outbox.orders.ordering",
        "sorted", "outbox.worker", "cron")).problems();

    assertThat(problems).extracting(OutboxConfigurationException::key)
        .containsExactlyInAnyOrder("outbox.orders.partitions", "outbox.orders.ordering", "outbox.worker");
  }

  @Test
  void an_outbox_name_that_cannot_be_a_key_is_refused() {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.worker.relay", "jms");
    assertThat(onlyProblem(read(config)).getMessage()).contains("declares an outbox named 'worker', which is not allowed");
  }

  /**
   * Delays are counted in whole milliseconds (backoff doubling, poll scheduling, the claim's lease):
   * {@code PT0.0005S} used to be read as 0 ms, and a backoff doubling from 0 retried a failing
   * message 62 times at once.
   */
  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "outbox.orders.backoff.min          | PT0.0005S",
      "outbox.orders.backoff.max          | PT0.0005S",
      "outbox.orders.poll-interval        | PT0.0009S",
      "outbox.orders.max-poll-interval    | PT5.0000001S",
      "outbox.orders.relay-timeout        | PT1.5005S",
      "outbox.orders.transaction-timeout  | PT60.000001S",
      "outbox.metrics.refresh-interval    | PT0.000000001S",
  })
  void a_duration_that_is_not_a_whole_number_of_milliseconds_is_refused_naming_key_value_and_rule(String key,
      String value) {
    OutboxConfigurationException problem = onlyProblem(read(orders(key, value)));

    assertThat(problem.key()).isEqualTo(key);
    assertThat(problem.getMessage()).isEqualTo(key + "=" + value + " is not a whole number of milliseconds:"
        + " durations are counted in milliseconds, the shortest is 1ms");
  }

  @Test
  void sub_millisecond_durations_of_several_keys_are_all_reported_at_once() {
    List<OutboxConfigurationException> problems = read(orders("outbox.orders.backoff.min", "PT0.0005S",
        "outbox.orders.poll-interval", "PT0.0001S", "outbox.orders.relay-timeout", "PT0.5005S")).problems();

    assertThat(problems).extracting(OutboxConfigurationException::key).containsExactlyInAnyOrder(
        "outbox.orders.backoff.min", "outbox.orders.poll-interval", "outbox.orders.relay-timeout");
  }

  @Test
  void a_whole_number_of_milliseconds_written_in_iso_8601_is_accepted() {
    OutboxSettings settings = read(orders("outbox.orders.backoff.min", "PT0.001S",
        "outbox.orders.poll-interval", "PT0.250S")).orThrow().require("orders");

    assertThat(settings.backoffMin()).isEqualTo(Duration.ofMillis(1));
    assertThat(settings.pollInterval()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void an_empty_value_counts_as_not_set() {
    assertThat(read(orders("outbox.orders.partitions", "")).orThrow().require("orders").partitions()).isEqualTo(1);
  }

  private static OutboxConfigurationException onlyProblem(OutboxConfigReader.Result result) {
    assertThat(result.problems()).hasSize(1);
    return result.problems().get(0);
  }
}
