package dev.outboxer.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.OutboxConfigReader;
import dev.outboxer.spi.RelayContext;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: the kafka relay configured by environment variables, read as a deployment
 * reads them: SmallRye Config with its real environment source, the core's reader building the
 * relay's context, the relay checking it. Its own keys have hyphens, Kafka's producer properties
 * dots.
 */
class KafkaEnvironmentVariablesTest {

  private static RelayContext context(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> config.getOptionalValue(key, String.class),
        config.getPropertyNames(), Set.of("kafka")).read();
    assertThat(result.problems()).as("the core's problems").isEmpty();
    assertThat(result.relayChecks()).hasSize(1);
    return result.relayChecks().get(0).context();
  }

  private static Map<String, String> env(String... keyValues) {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "kafka", "HOME", "/root"));
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  @Test
  void every_kafka_key_set_as_an_environment_variable_is_read() {
    KafkaRelayConfig settings = KafkaRelayConfig.from(context(env(
        "OUTBOX_ORDERS_KAFKA_TOPIC", "orders",
        "OUTBOX_ORDERS_KAFKA_FENCING", "none",
        "OUTBOX_ORDERS_KAFKA_TRANSACTIONAL_ID_PREFIX", "shop",
        "OUTBOX_ORDERS_KAFKA_BOOTSTRAP_SERVERS", "broker:9092",
        "OUTBOX_ORDERS_KAFKA_LINGER_MS", "20",
        "OUTBOX_ORDERS_KAFKA_COMPRESSION_TYPE", "zstd",
        "OUTBOX_ORDERS_KAFKA_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION", "2"), Map.of(), Map.of()));

    assertThat(settings.topic()).isEqualTo("orders");
    assertThat(settings.fencing()).isEqualTo(KafkaSettings.Fencing.NONE);
    assertThat(settings.transactionalId(0)).isEqualTo("shop-0");
    assertThat(settings.producerProperties())
        .containsEntry("bootstrap.servers", "broker:9092")
        .containsEntry("linger.ms", "20")
        .containsEntry("compression.type", "zstd")
        .containsEntry("max.in.flight.requests.per.connection", "2");
  }

  @Test
  void a_misspelt_kafka_environment_variable_is_refused_as_written_with_the_suggestion() {
    RelayContext context = context(env(
        "OUTBOX_ORDERS_KAFKA_TOPIC", "orders",
        "OUTBOX_ORDERS_KAFKA_BOOTSTRAP_SERVERS", "broker:9092",
        "OUTBOX_ORDERS_KAFKA_FENCNG", "none"), Map.of(), Map.of());

    OutboxConfigurationException problem =
        catchThrowableOfType(OutboxConfigurationException.class, () -> KafkaRelayConfig.from(context));

    assertThat(problem).isNotNull();
    assertThat(problem.getSuppressed()).isEmpty();
    assertThat(problem.getMessage()).contains("OUTBOX_ORDERS_KAFKA_FENCNG")
        .contains("Did you mean OUTBOX_ORDERS_KAFKA_FENCING?");
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.orders.kafka.topic", "file-topic",
        "outbox.orders.kafka.bootstrap.servers", "file:9092", "outbox.orders.kafka.transactional-id-prefix", "file");
    Map<String, String> env = env("OUTBOX_ORDERS_KAFKA_TOPIC", "env-topic",
        "OUTBOX_ORDERS_KAFKA_BOOTSTRAP_SERVERS", "env:9092", "OUTBOX_ORDERS_KAFKA_TRANSACTIONAL_ID_PREFIX", "env");
    Map<String, String> system = Map.of("outbox.orders.kafka.bootstrap.servers", "sys:9092",
        "outbox.orders.kafka.transactional-id-prefix", "sys");

    KafkaRelayConfig settings = KafkaRelayConfig.from(context(env, file, system));

    assertThat(settings.topic()).as("environment over file").isEqualTo("env-topic");
    assertThat(settings.producerProperties()).as("system property over environment")
        .containsEntry("bootstrap.servers", "sys:9092");
    assertThat(settings.transactionalId(1)).as("system property over environment").isEqualTo("sys-1");
  }
}
