package dev.outboxer.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.RelayContext;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The {@code outbox.<name>.rabbitmq.*} keys: defaults, and every bad value a clear error naming its key. */
class RabbitSettingsTest {

  private static RelayContext context(Duration relayTimeout, String... keyValues) {
    Map<String, String> properties = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      properties.put(keyValues[i], keyValues[i + 1]);
    }
    return new RelayContext("orders", Ordering.GROUP, 4, relayTimeout, properties);
  }

  private static OutboxConfigurationException refused(Duration relayTimeout, String... keyValues) {
    OutboxConfigurationException problem = catchThrowableOfType(OutboxConfigurationException.class,
        () -> new RabbitRelayProvider().validate(context(relayTimeout, keyValues)));
    assertThat(problem).as("refused").isNotNull();
    return problem;
  }

  private static List<String> messages(OutboxConfigurationException problem) {
    return Stream.concat(Stream.of(problem), Arrays.stream(problem.getSuppressed())).map(Throwable::getMessage)
        .toList();
  }

  @Test
  void only_the_exchange_is_required_and_everything_else_has_a_default() {
    RabbitSettings settings = RabbitSettings.from(context(Duration.ofSeconds(40), "exchange", "orders"));

    assertThat(settings.host()).isEqualTo("localhost");
    assertThat(settings.port()).isEqualTo(5672);
    assertThat(settings.virtualHost()).isEqualTo("/");
    assertThat(settings.username()).isEqualTo("guest");
    assertThat(settings.password()).isEqualTo("guest");
    assertThat(settings.routingKey()).isEmpty();
    assertThat(settings.mandatory()).isTrue();
    assertThat(settings.persistent()).isTrue();
    assertThat(settings.maxMessageSize()).isEqualTo(128L * 1024 * 1024);
    assertThat(settings.confirmTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.connectionTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.connectionName()).isEqualTo("outboxer-orders");
  }

  @Test
  void a_short_relay_timeout_shortens_the_derived_timeouts() {
    RabbitSettings settings = RabbitSettings.from(context(Duration.ofSeconds(4), "exchange", "orders"));

    assertThat(settings.confirmTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(settings.connectionTimeout()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void a_missing_exchange_is_refused_naming_the_key() {
    OutboxConfigurationException problem = refused(Duration.ofSeconds(30));

    assertThat(problem.key()).isEqualTo("outbox.orders.rabbitmq.exchange");
    assertThat(problem).hasMessageContaining("outbox.orders.rabbitmq.exchange is not set");
  }

  @Test
  void every_bad_value_is_reported_at_once_each_naming_its_key_and_the_password_is_never_shown() {
    OutboxConfigurationException problem = refused(Duration.ofSeconds(30),
        "exchange", "x".repeat(256),
        "port", "70000",
        "mandatory", "maybe",
        "persistent", "yes",
        "max-message-size", "1GB",
        "routing-key", "r".repeat(300),
        "password", "s3cr3t",
        "confirm-timeout", "forever",
        "connection-timeout", "-1s",
        "virtual-hots", "/");

    List<String> messages = messages(problem);
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.exchange=")
        .contains("256 bytes").contains("at most 255"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.port=70000")
        .contains("1 to 65535"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.mandatory=maybe")
        .contains("true or false"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.persistent=yes"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.max-message-size=1GB"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.routing-key="));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.confirm-timeout=forever"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.connection-timeout=-1s"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("outbox.orders.rabbitmq.virtual-hots")
        .contains("outbox.orders.rabbitmq.virtual-host"));
    assertThat(messages).hasSize(9).noneSatisfy(m -> assertThat(m).contains("s3cr3t"));
  }

  @Test
  void a_confirm_timeout_not_shorter_than_the_relay_timeout_is_refused() {
    OutboxConfigurationException problem = refused(Duration.ofSeconds(30), "exchange", "orders",
        "confirm-timeout", "30s");

    assertThat(problem.key()).isEqualTo("outbox.orders.rabbitmq.confirm-timeout");
    assertThat(problem).hasMessageContaining("must be shorter than outbox.orders.relay-timeout (30s)");
  }

  @Test
  void a_connection_timeout_longer_than_the_confirm_timeout_is_refused() {
    OutboxConfigurationException problem = refused(Duration.ofSeconds(30), "exchange", "orders",
        "confirm-timeout", "2s", "connection-timeout", "3s");

    assertThat(problem.key()).isEqualTo("outbox.orders.rabbitmq.connection-timeout");
    assertThat(problem).hasMessageContaining("longer than the confirm timeout (2s)");
  }

  @Test
  void a_relay_timeout_below_one_second_is_refused_naming_it() {
    OutboxConfigurationException problem = refused(Duration.ofMillis(500), "exchange", "orders");

    assertThat(problem.key()).isEqualTo("outbox.orders.relay-timeout");
    assertThat(problem).hasMessageContaining("too short for the rabbitmq relay");
  }

  @Test
  void publish_refuses_what_amqp_cannot_carry() {
    var constraints = new RabbitRelayProvider().constraints(context(Duration.ofSeconds(30), "exchange", "orders",
        "max-message-size", "1KB"));

    assertThat(constraints.checkHeader("h".repeat(256), "v")).contains("at most 255");
    assertThat(constraints.checkHeader("x-tenant", "v".repeat(10_000))).isNull();
    assertThat(constraints.checkMessage("T".repeat(256), null, "application/json", new byte[1], Map.of()))
        .contains("type of 256 bytes");
    assertThat(constraints.checkMessage("T", null, "application/json", new byte[1025], Map.of()))
        .contains("payload of 1025 bytes");
    assertThat(constraints.checkMessage("T", "g".repeat(1000), "application/json", new byte[1024], Map.of()))
        .as("a long group key is hashed into the routing key").isNull();
  }
}
