package dev.outboxer.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaRelaySettingsTest {

  private static RelayContext context(Duration relayTimeout, String... keyValues) {
    Map<String, String> properties = new HashMap<>();
    properties.put("topic", "orders");
    properties.put("bootstrap.servers", "127.0.0.1:9");
    for (int i = 0; i < keyValues.length; i += 2) {
      properties.put(keyValues[i], keyValues[i + 1]);
    }
    return new RelayContext("orders", Ordering.GROUP, 4, relayTimeout, properties);
  }

  private static RelayContext context(String... keyValues) {
    return context(Duration.ofSeconds(30), keyValues);
  }

  @Test
  void appliesSafeDefaultsAndPassesOtherProducerPropertiesThrough() {
    KafkaRelaySettings settings =
        KafkaRelaySettings.from(context("compression.type", "zstd", "linger.ms", "10"));

    assertThat(settings.topic()).isEqualTo("orders");
    assertThat(settings.producerProperties())
        .containsEntry("bootstrap.servers", "127.0.0.1:9")
        .containsEntry("compression.type", "zstd")
        .containsEntry("linger.ms", "10")
        .containsEntry("enable.idempotence", "true")
        .containsEntry("acks", "all")
        .containsEntry("max.in.flight.requests.per.connection", "5")
        .containsEntry("key.serializer", StringSerializer.class.getName())
        .containsEntry("value.serializer", ByteArraySerializer.class.getName())
        .containsEntry("client.id", "outboxer-orders")
        .containsEntry("delivery.timeout.ms", 22_500)
        .containsEntry("request.timeout.ms", 11_250)
        .containsEntry("max.block.ms", 7_500L)
        .doesNotContainKey("topic");
    assertThat(settings.deliveryTimeout()).isEqualTo(Duration.ofMillis(22_500));
  }

  @Test
  void keepsTheDeliveryTimeoutBelowTheRelayTimeoutAndCapsKafkaDefaults() {
    KafkaRelaySettings settings = KafkaRelaySettings.from(context(Duration.ofMinutes(10)));

    assertThat(settings.producerProperties())
        .containsEntry("delivery.timeout.ms", 450_000)
        .containsEntry("request.timeout.ms", 30_000)
        .containsEntry("max.block.ms", 60_000L);
  }

  @Test
  void acceptsSafeOverrides() {
    KafkaRelaySettings settings = KafkaRelaySettings.from(context("acks", "-1",
        "enable.idempotence", "TRUE", "max.in.flight.requests.per.connection", "1",
        "delivery.timeout.ms", "20000", "request.timeout.ms", "5000", "max.block.ms", "2000"));

    assertThat(settings.producerProperties())
        .containsEntry("max.in.flight.requests.per.connection", "1")
        .containsEntry("delivery.timeout.ms", 20_000)
        .containsEntry("request.timeout.ms", 5_000)
        .containsEntry("max.block.ms", 2_000L);
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "enable.idempotence, false",
    "acks, 1",
    "acks, 0",
    "max.in.flight.requests.per.connection, 6",
    "max.in.flight.requests.per.connection, 0",
    "retries, 0",
    "transactional.id, orders-tx",
    "key.serializer, org.apache.kafka.common.serialization.ByteArraySerializer",
    "value.serializer, org.apache.kafka.common.serialization.StringSerializer",
    "partitioner.ignore.keys, true",
    "delivery.timeout.ms, 30000",
    "max.block.ms, 30000",
    "linger.ms, soon",
  })
  void rejectsAnOverrideThatBreaksOrderingOrSafetyNamingTheKeyAndValue(String key, String value) {
    assertThatThrownBy(() -> KafkaRelaySettings.from(context(key, value)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka." + key + "=" + value)
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.kafka." + key);
  }

  @Test
  void rejectsADeliveryTimeoutKafkaWouldRefuseWithAHint() {
    assertThatThrownBy(() -> KafkaRelaySettings.from(
            context("delivery.timeout.ms", "1000", "request.timeout.ms", "5000")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.delivery.timeout.ms=1000 must be at least "
            + "linger.ms + request.timeout.ms (5 + 5000 ms)")
        .hasMessageContaining("outbox.orders.kafka.request.timeout.ms");
  }

  @Test
  void requiresTheTopic() {
    RelayContext context = new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30),
        Map.of("bootstrap.servers", "127.0.0.1:9"));

    assertThatThrownBy(() -> KafkaRelaySettings.from(context))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.topic is not set");
  }

  @Test
  void rejectsAnIllegalTopicName() {
    assertThatThrownBy(() -> KafkaRelaySettings.from(context("topic", "orders/paid")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.topic=orders/paid is not a legal Kafka topic");
  }

  @Test
  void requiresTheBootstrapServers() {
    RelayContext context = new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30),
        Map.of("topic", "orders"));

    assertThatThrownBy(() -> KafkaRelaySettings.from(context))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.bootstrap.servers is not set");
  }

  @Test
  void rejectsARelayTimeoutTooShortForRetries() {
    assertThatThrownBy(() -> KafkaRelaySettings.from(context(Duration.ofMillis(500))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.relay-timeout=PT0.5S");
  }

  @Test
  void reportsAPropertyKafkaRejectsAsAConfigurationError() {
    KafkaRelayProvider provider = new KafkaRelayProvider();

    assertThatThrownBy(() -> provider.create(context("compression.type", "brotli")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka")
        .hasMessageContaining("brotli");
  }

  @Test
  void providerIsNamedKafkaAndCreatesAClosableRelayWithoutConnecting() {
    KafkaRelayProvider provider = new KafkaRelayProvider();

    assertThat(provider.name()).isEqualTo("kafka");
    Relay relay = provider.create(context());
    assertThat(relay).hasToString("KafkaRelay[outbox=orders, topic=orders]");
    relay.close();
    relay.close();
  }
}
