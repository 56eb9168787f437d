package dev.outboxer.sqs;

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
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: the sqs relay configured by environment variables, read as a deployment reads
 * them: SmallRye Config with its real environment source, the core's reader building the relay's
 * context, the relay checking it.
 */
class SqsEnvironmentVariablesTest {

  private static RelayContext context(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new EnvConfigSource(env, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .build();
    OutboxConfigReader.Result result = new OutboxConfigReader(key -> config.getOptionalValue(key, String.class),
        config.getPropertyNames(), Set.of("sqs")).read();
    assertThat(result.problems()).as("the core's problems").isEmpty();
    assertThat(result.relayChecks()).hasSize(1);
    return result.relayChecks().get(0).context();
  }

  private static Map<String, String> env(String... keyValues) {
    Map<String, String> env = new HashMap<>(Map.of("OUTBOX_ORDERS_RELAY", "sqs", "OUTBOX_ORDERS_ORDERING", "none",
        "OUTBOX_ORDERS_RELAY_TIMEOUT", "40s", "PATH", "/usr/bin"));
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return env;
  }

  @Test
  void every_sqs_key_set_as_an_environment_variable_is_read() {
    SqsSettings settings = SqsSettings.from(context(env(
        "OUTBOX_ORDERS_SQS_QUEUE_NAME", "orders",
        "OUTBOX_ORDERS_SQS_REGION", "eu-west-1",
        "OUTBOX_ORDERS_SQS_ENDPOINT", "http://localhost:9324",
        "OUTBOX_ORDERS_SQS_ACCESS_KEY_ID", "id",
        "OUTBOX_ORDERS_SQS_SECRET_ACCESS_KEY", "secret",
        "OUTBOX_ORDERS_SQS_SESSION_TOKEN", "token",
        "OUTBOX_ORDERS_SQS_BATCH_SIZE", "5",
        "OUTBOX_ORDERS_SQS_MAX_MESSAGE_SIZE", "2048",
        "OUTBOX_ORDERS_SQS_API_CALL_TIMEOUT", "20s",
        "OUTBOX_ORDERS_SQS_API_CALL_ATTEMPT_TIMEOUT", "6s",
        "OUTBOX_ORDERS_SQS_CONNECT_TIMEOUT", "1s"), Map.of(), Map.of()));

    assertThat(settings.queueName()).isEqualTo("orders");
    assertThat(settings.region()).contains("eu-west-1");
    assertThat(settings.endpoint()).hasValueSatisfying(uri -> assertThat(uri).hasToString("http://localhost:9324"));
    assertThat(settings.accessKeyId()).contains("id");
    assertThat(settings.secretAccessKey()).contains("secret");
    assertThat(settings.sessionToken()).contains("token");
    assertThat(settings.batchSize()).isEqualTo(5);
    assertThat(settings.maxMessageSize()).isEqualTo(2048);
    assertThat(settings.apiCallTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(settings.attemptTimeout()).isEqualTo(Duration.ofSeconds(6));
    assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void the_fifo_keys_set_as_environment_variables_are_read() {
    SqsSettings settings = SqsSettings.from(context(env(
        "OUTBOX_ORDERS_ORDERING", "total",
        "OUTBOX_ORDERS_SQS_TOTAL_GROUP_ID", "all",
        "OUTBOX_ORDERS_SQS_QUEUE_URL", "http://localhost:9324/000000000000/orders.fifo",
        "OUTBOX_ORDERS_SQS_REGION", "eu-west-1",
        "OUTBOX_ORDERS_SQS_UNGROUPED_GROUP_IDS", "a,b",
        "OUTBOX_ORDERS_SQS_DEDUPLICATION_ID_PREFIX", "shop-"), Map.of(), Map.of()));

    assertThat(settings.ungroupedGroupIds()).isEqualTo(List.of("a", "b"));
    assertThat(settings.totalGroupId()).isEqualTo("all");
    assertThat(settings.deduplicationIdPrefix()).isEqualTo("shop-");
    assertThat(settings.queueUrl()).isPresent();
  }

  @Test
  void a_misspelt_sqs_environment_variable_is_refused_as_written_with_the_suggestion() {
    RelayContext context = context(env(
        "OUTBOX_ORDERS_SQS_QUEUE_NAME", "orders",
        "OUTBOX_ORDERS_SQS_REGION", "eu-west-1",
        "OUTBOX_ORDERS_SQS_BATCH_SIZ", "5"), Map.of(), Map.of());

    OutboxConfigurationException problem =
        catchThrowableOfType(OutboxConfigurationException.class, () -> SqsSettings.from(context));

    assertThat(problem).isNotNull();
    assertThat(problem.getSuppressed()).isEmpty();
    assertThat(problem.getMessage()).contains("OUTBOX_ORDERS_SQS_BATCH_SIZ")
        .contains("Did you mean OUTBOX_ORDERS_SQS_BATCH_SIZE?");
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() {
    Map<String, String> file = Map.of("outbox.orders.sqs.queue-name", "file", "outbox.orders.sqs.region", "eu-west-1",
        "outbox.orders.sqs.batch-size", "1");
    Map<String, String> env = env("OUTBOX_ORDERS_SQS_QUEUE_NAME", "env", "OUTBOX_ORDERS_SQS_BATCH_SIZE", "2");
    Map<String, String> system = Map.of("outbox.orders.sqs.batch-size", "3");

    SqsSettings settings = SqsSettings.from(context(env, file, system));

    assertThat(settings.queueName()).as("environment over file").isEqualTo("env");
    assertThat(settings.batchSize()).as("system property over environment").isEqualTo(3);
  }
}
