package dev.outboxer.cdi.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.outboxer.OutboxConfigurationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The configuration rows of the bad-input table (issue 11, "Deliver" 6): every key Outboxer reads,
 * set to a blank value (spaces: an empty value counts as not set, as in MicroProfile Config), a
 * negative one, and one too large for its type, is reported as exactly one problem naming the key
 * and the value, with the allowed range (a blank value: with the default to remove the key for, as
 * {@link dev.outboxer.spi.Setting} says it for every module); reading never throws.
 */
class ConfigurationBadInputTest {

  /** The reader as the deployment runs it: an empty value counts as not set, as in SmallRye Config. */
  private static OutboxConfigReader.Result read(Map<String, String> config) {
    return new OutboxConfigReader(key -> Optional.ofNullable(config.get(key)).filter(v -> !v.isEmpty()),
        config.keySet()).read();
  }

  @ParameterizedTest(name = "{0}=''{1}''")
  @CsvSource(delimiter = '|', ignoreLeadingAndTrailingWhitespace = false, value = {
      // key | value | what the message says
      "outbox.orders.ordering|   |is blank: remove the key for the default (group) or give it a value",
      "outbox.orders.partitions|   |is blank: remove the key for the default (1) or give it a value",
      "outbox.orders.partitions|-1|is out of range: use a number from 1 to 1024",
      "outbox.orders.partitions|1025|is out of range: use a number from 1 to 1024",
      "outbox.orders.partitions|99999999999999999999|is out of range: use a number from 1 to 1024",
      "outbox.orders.max-attempts|   |is blank: remove the key for the default (infinity) or give it a value",
      "outbox.orders.max-attempts|-1|must be at least 1, or 'infinity'",
      "outbox.orders.max-attempts|99999999999999999999|is out of range",
      "outbox.orders.backoff.min|   |is blank: remove the key for the default (1s)",
      "outbox.orders.backoff.min|-1s|is not a duration",
      "outbox.orders.backoff.min|PT-1S|must be longer than zero",
      "outbox.orders.backoff.min|200000d|is too long: the limit is 365d",
      "outbox.orders.backoff.max|   |is blank: remove the key for the default (1m)",
      "outbox.orders.backoff.max|PT-1S|must be longer than zero",
      "outbox.orders.backoff.max|200000d|is too long: the limit is 365d",
      "outbox.orders.serialize-writes|   |is blank: remove the key for the default (false)",
      "outbox.orders.batch-size|   |is blank: remove the key for the default (100)",
      "outbox.orders.batch-size|-1|is out of range: use a number from 1 to 10000",
      "outbox.orders.batch-size|10001|is out of range: use a number from 1 to 10000",
      "outbox.orders.batch-size|99999999999|is out of range: use a number from 1 to 10000",
      "outbox.orders.poll-interval|   |is blank: remove the key for the default (500ms)",
      "outbox.orders.poll-interval|PT-1S|must be longer than zero",
      "outbox.orders.poll-interval|200000d|is too long: the limit is 365d",
      "outbox.orders.max-poll-interval|   |is blank: remove the key for the default (5s)",
      "outbox.orders.max-poll-interval|200000d|is too long: the limit is 365d",
      "outbox.orders.relay-timeout|   |is blank: remove the key for the default (30s)",
      "outbox.orders.relay-timeout|PT-1S|must be longer than zero",
      "outbox.orders.relay-timeout|200000d|is too long: the limit is 1h",
      "outbox.orders.transaction-timeout|   |is blank: remove the key for the default (1m)",
      "outbox.orders.transaction-timeout|PT-1S|must be longer than zero",
      "outbox.orders.transaction-timeout|200000d|is too long: the limit is 2h",
      "outbox.orders.max-payload-size|   |is blank: remove the key for the default (the database's and the relay's limit)",
      "outbox.orders.max-payload-size|-1|is not a size",
      "outbox.orders.max-payload-size|3GB|is out of range: use 1 to 2147483647",
      "outbox.orders.max-payload-size|99999999999999999999GB|is out of range: use 1 to 2147483647",
      "outbox.worker|   |is blank: remove the key for the default (executor)",
      "outbox.worker.threads|   |is blank: remove the key for the default (one per partition, at most 16)",
      "outbox.worker.threads|-1|is out of range: use a number from 1 to 256",
      "outbox.worker.threads|99999999999|is out of range: use a number from 1 to 256",
      "outbox.worker.executor|   |is blank: remove the key for the default (java:comp/DefaultManagedScheduledExecutorService)",
      "outbox.database|   |is blank: remove the key for the default (detected)",
      "outbox.metrics.refresh-interval|   |is blank: remove the key for the default (5s)",
      "outbox.metrics.refresh-interval|PT-1S|must be longer than zero",
      "outbox.metrics.refresh-interval|200000d|is too long: the limit is 365d",
      "outbox.node-id|   |is blank: remove the key for the default (the JVM's name, pid@host)",
      "outbox.schema|   |is blank: remove the key for the default (validate)",
      "outbox.datasource|   |is blank: remove the key for the default (the data source behind the application's EntityManager)",
      "outbox.wake-up|   |is blank: remove the key for the default (notify)",
      "outbox.orders.dead-retention|   |is blank: remove the key for the default (off: dead messages stay until retried or discarded)",
      "outbox.orders.dead-retention|-7d|is not a duration",
      "outbox.orders.dead-retention|PT-1S|must be longer than zero",
      "outbox.orders.dead-retention|4000d|is too long: the limit is 3650d",
      "outbox.orders.retention-interval|   |is blank: remove the key for the default (1h)",
      "outbox.orders.retention-interval|500ms|is too short: the least is 1s",
      "outbox.orders.retention-interval|200000d|is too long: the limit is 365d",
  })
  void a_blank_negative_or_too_large_value_is_one_problem_naming_key_value_and_range(String key, String value,
      String rule) {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.orders.relay", "jms");
    config.put(key, value);
    assertThatCode(() -> read(config)).as("reading never throws").doesNotThrowAnyException();

    List<OutboxConfigurationException> problems = read(config).problems();
    assertThat(problems).as("problems").hasSize(1);
    assertThat(problems.get(0).key()).isEqualTo(key);
    assertThat(problems.get(0).getMessage()).startsWith(key + "=").contains(value.trim()).contains(rule);
  }

  @org.junit.jupiter.api.Test
  void a_relay_of_only_spaces_is_reported_as_blank_like_an_empty_one() {
    Map<String, String> config = new HashMap<>();
    config.put("outbox.orders.relay", "   ");
    config.put("outbox.orders.partitions", "4");

    List<OutboxConfigurationException> problems = read(config).problems();
    assertThat(problems).extracting(OutboxConfigurationException::key).containsExactly("outbox.orders.relay");
    assertThat(problems.get(0).getMessage()).contains("outbox.orders.relay is blank", "jms, kafka");
  }
}
