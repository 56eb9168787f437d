package dev.outboxer.cdi.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxConfigurationException;
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
 * Issue 25, item 1: a deployment configured by environment variables. MicroProfile Config maps
 * {@code OUTBOX_ORDERS_MAX_ATTEMPTS} to {@code outbox.orders.max-attempts} when the key is looked
 * up, but {@code getPropertyNames()} reports the variable's name (and SmallRye a lower-cased,
 * dotted twin of it): every key must still be read, a misspelt variable still refused, and the
 * precedence system property &gt; environment &gt; file kept. The configuration is SmallRye's, with
 * its real environment source built from a map.
 */
class EnvironmentVariableConfigTest {

  private static OutboxConfigReader.Result read(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
    return new OutboxConfigReader(key -> config.getOptionalValue(key, String.class), config.getPropertyNames(),
        Set.of("jms", "kafka")).read();
  }

  private static OutboxConfigReader.Result readEnv(Map<String, String> env) {
    return read(env, Map.of(), Map.of());
  }

  private static Map<String, String> everyKey() {
    Map<String, String> env = new HashMap<>();
    env.put("OUTBOX_ORDERS_RELAY", "jms");
    env.put("OUTBOX_ORDERS_ORDERING", "none");
    env.put("OUTBOX_ORDERS_PARTITIONS", "4");
    env.put("OUTBOX_ORDERS_MAX_ATTEMPTS", "3");
    env.put("OUTBOX_ORDERS_DEAD_ON", "java.io.IOException,java.util.NoSuchElementException");
    env.put("OUTBOX_ORDERS_BACKOFF_MIN", "2s");
    env.put("OUTBOX_ORDERS_BACKOFF_MAX", "90s");
    env.put("OUTBOX_ORDERS_SERIALIZE_WRITES", "true");
    env.put("OUTBOX_ORDERS_BATCH_SIZE", "50");
    env.put("OUTBOX_ORDERS_POLL_INTERVAL", "250ms");
    env.put("OUTBOX_ORDERS_MAX_POLL_INTERVAL", "10s");
    env.put("OUTBOX_ORDERS_RELAY_TIMEOUT", "20s");
    env.put("OUTBOX_ORDERS_TRANSACTION_TIMEOUT", "40s");
    env.put("OUTBOX_ORDERS_MAX_PAYLOAD_SIZE", "512KB");
    env.put("OUTBOX_ORDERS_MAX_DELAY", "2d");
    env.put("OUTBOX_ORDERS_ADMIN_CHUNK_SIZE", "500");
    env.put("OUTBOX_ORDERS_DEAD_RETENTION", "30d");
    env.put("OUTBOX_ORDERS_RETENTION_INTERVAL", "15m");
    env.put("OUTBOX_ORDERS_WORKER_TRANSACTION", "jta");
    env.put("OUTBOX_ORDERS_JMS_CONNECTION_FACTORY", "jms/cf");
    env.put("OUTBOX_ORDERS_JMS_DESTINATION", "jms/orders");
    env.put("OUTBOX_WORKER", "none");
    env.put("OUTBOX_WORKER_EXECUTOR", "concurrent/workers");
    env.put("OUTBOX_WORKER_THREADS", "3");
    env.put("OUTBOX_DATABASE", "h2");
    env.put("OUTBOX_METRICS_REFRESH_INTERVAL", "7s");
    env.put("OUTBOX_NODE_ID", "node-7");
    env.put("OUTBOX_SCHEMA", "none");
    env.put("OUTBOX_DATASOURCE", "jdbc/orders");
    env.put("OUTBOX_WAKE_UP", "poll");
    // The other modules' keys: theirs to check, not the core's.
    env.put("OUTBOX_HEALTH_WORKER_STALL", "2m");
    env.put("OUTBOX_ORDERS_HEALTH_MAX_LAG", "5m");
    env.put("OUTBOX_ADMIN_ROLE", "ops");
    env.put("OUTBOX_INBOX_SCHEMA", "none");
    // Not Outboxer's.
    env.put("PATH", "/usr/bin");
    env.put("HOME", "/root");
    return env;
  }

  @Test
  void every_key_set_as_an_environment_variable_is_read_with_its_value_and_no_problem() {
    OutboxConfigReader.Result result = readEnv(everyKey());

    assertThat(result.problems()).as("problems").isEmpty();
    OutboxConfiguration configuration = result.configuration();
    OutboxSettings orders = configuration.require("orders");
    assertThat(orders.relay()).isEqualTo("jms");
    assertThat(orders.ordering()).isEqualTo(Ordering.NONE);
    assertThat(orders.partitions()).isEqualTo(4);
    assertThat(orders.maxAttempts()).isEqualTo(3);
    assertThat(orders.deadOn()).containsExactly("java.io.IOException", "java.util.NoSuchElementException");
    assertThat(orders.backoffMin()).isEqualTo(Duration.ofSeconds(2));
    assertThat(orders.backoffMax()).isEqualTo(Duration.ofSeconds(90));
    assertThat(orders.serializeWrites()).isTrue();
    assertThat(orders.batchSize()).isEqualTo(50);
    assertThat(orders.pollInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(orders.maxPollInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(orders.relayTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(orders.transactionTimeout()).isEqualTo(Duration.ofSeconds(40));
    assertThat(orders.maxPayloadSize()).isEqualTo(512 * 1024);
    assertThat(orders.maxDelay()).isEqualTo(Duration.ofDays(2));
    assertThat(orders.adminChunkSize()).isEqualTo(500);
    assertThat(orders.deadRetention()).isEqualTo(Duration.ofDays(30));
    assertThat(orders.retentionInterval()).isEqualTo(Duration.ofMinutes(15));
    assertThat(orders.workerTransactionAlwaysJta()).isTrue();
    assertThat(configuration.workerMode()).isEqualTo(WorkerMode.NONE);
    assertThat(configuration.workerExecutor()).contains("concurrent/workers");
    assertThat(configuration.workerThreads()).isEqualTo(3);
    assertThat(configuration.database()).contains("h2");
    assertThat(configuration.metricsRefresh()).isEqualTo(Duration.ofSeconds(7));
    assertThat(configuration.nodeId()).isEqualTo("node-7");
    assertThat(configuration.schema()).isEqualTo(SchemaMode.NONE);
    assertThat(configuration.dataSource()).contains("jdbc/orders");
    assertThat(configuration.notifyWakeUp()).isFalse();

    assertThat(result.relayChecks()).singleElement().satisfies(check -> {
      assertThat(check.relayKey()).isEqualTo("outbox.orders.relay");
      assertThat(check.context().property("connection-factory")).contains("jms/cf");
      assertThat(check.context().property("destination")).contains("jms/orders");
    });
  }

  @Test
  void an_outbox_configured_only_by_environment_variables_gets_the_lower_cased_name() {
    OutboxConfigReader.Result result = readEnv(Map.of("OUTBOX_ORDERS_RELAY", "kafka", "OUTBOX_ORDERS_BATCH_SIZE", "20"));

    assertThat(result.problems()).isEmpty();
    assertThat(result.configuration().outboxes().keySet()).containsExactly("orders");
    assertThat(result.configuration().require("orders").batchSize()).isEqualTo(20);
  }

  @Test
  void an_outbox_declared_in_the_file_takes_its_other_keys_from_environment_variables_whatever_its_spelling() {
    OutboxConfigReader.Result result = read(
        Map.of("OUTBOX_MY_ORDERS_BATCH_SIZE", "20", "OUTBOX_MY_ORDERS_MAX_ATTEMPTS", "4"),
        Map.of("outbox.my-orders.relay", "jms"), Map.of());

    assertThat(result.problems()).isEmpty();
    assertThat(result.configuration().outboxes().keySet()).containsExactly("my-orders");
    assertThat(result.configuration().require("my-orders").batchSize()).isEqualTo(20);
    assertThat(result.configuration().require("my-orders").maxAttempts()).isEqualTo(4);
  }

  @Test
  void a_misspelt_environment_variable_is_refused_with_the_suggestion_in_the_form_written() {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "jms", "OUTBOX_ORDERS_MAX_ATEMPTS", "3",
        "OUTBOX_NODE_IDD", "n1"));
    OutboxConfigReader.Result result = readEnv(env);

    assertThat(result.problems()).extracting(OutboxConfigurationException::getMessage)
        .anySatisfy(message -> assertThat(message).contains("OUTBOX_ORDERS_MAX_ATEMPTS")
            .contains("Did you mean OUTBOX_ORDERS_MAX_ATTEMPTS?"))
        .anySatisfy(message -> assertThat(message).contains("OUTBOX_NODE_IDD")
            .contains("Did you mean OUTBOX_NODE_ID?"));
    assertThat(result.problems()).hasSize(2);
  }

  @Test
  void a_variable_far_from_every_key_is_refused_only_when_it_names_a_configured_outbox() {
    OutboxConfigReader.Result result = readEnv(Map.of("OUTBOX_ORDERS_RELAY", "jms", "OUTBOX_ORDERS_COLOUR", "blue",
        "OUTBOX_SERVICE_HOST", "10.0.0.1", "OUTBOX_PORT_8080_TCP", "tcp://10.0.0.1:8080",
        "OUTBOX_TEST_DATABASE_PREFIX", "ci"));

    assertThat(result.problems()).extracting(OutboxConfigurationException::key).containsExactly("OUTBOX_ORDERS_COLOUR");
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.orders.relay", "jms", "outbox.orders.batch-size", "5",
        "outbox.orders.max-attempts", "5", "outbox.orders.jms.destination", "jms/file");
    Map<String, String> env = Map.of("OUTBOX_ORDERS_BATCH_SIZE", "7", "OUTBOX_ORDERS_MAX_ATTEMPTS", "7",
        "OUTBOX_ORDERS_JMS_DESTINATION", "jms/env", "OUTBOX_ORDERS_JMS_CONNECTION_FACTORY", "jms/cf");
    Map<String, String> system = Map.of("outbox.orders.max-attempts", "9");

    OutboxConfigReader.Result result = read(env, file, system);

    assertThat(result.problems()).isEmpty();
    OutboxSettings orders = result.configuration().require("orders");
    assertThat(orders.batchSize()).as("environment over file").isEqualTo(7);
    assertThat(orders.maxAttempts()).as("system property over environment").isEqualTo(9);
    assertThat(result.relayChecks().get(0).context().property("destination")).contains("jms/env");

    OutboxConfigReader.Result overridden = read(env, file, Map.of("outbox.orders.jms.destination", "jms/sys"));
    assertThat(overridden.relayChecks().get(0).context().property("destination")).contains("jms/sys");
  }

  @Test
  void a_misspelt_dotted_key_in_the_file_is_still_refused_beside_environment_variables() {
    OutboxConfigReader.Result result = read(Map.of("OUTBOX_ORDERS_BATCH_SIZE", "7"),
        Map.of("outbox.orders.relay", "jms", "outbox.orders.max.attempts", "3"), Map.of());

    assertThat(result.problems()).extracting(OutboxConfigurationException::getMessage)
        .singleElement().satisfies(message -> assertThat(message).contains("outbox.orders.max.attempts")
            .contains("Did you mean").contains("outbox.orders.max-attempts"));
  }
}
