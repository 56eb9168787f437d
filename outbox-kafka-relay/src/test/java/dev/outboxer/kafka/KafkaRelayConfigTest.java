package dev.outboxer.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaRelayConfigTest {

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
    KafkaRelayConfig settings =
        KafkaRelayConfig.from(context("compression.type", "zstd", "linger.ms", "10"));

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
    KafkaRelayConfig settings = KafkaRelayConfig.from(context(Duration.ofMinutes(10)));

    assertThat(settings.producerProperties())
        .containsEntry("delivery.timeout.ms", 450_000)
        .containsEntry("request.timeout.ms", 30_000)
        .containsEntry("max.block.ms", 60_000L);
  }

  @Test
  void acceptsSafeOverrides() {
    KafkaRelayConfig settings = KafkaRelayConfig.from(context("acks", "-1",
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
    "transaction.timeout.ms, soon",
    "key.serializer, org.apache.kafka.common.serialization.ByteArraySerializer",
    "value.serializer, org.apache.kafka.common.serialization.StringSerializer",
    "partitioner.ignore.keys, true",
    "delivery.timeout.ms, 30000",
    "max.block.ms, 30000",
    "linger.ms, soon",
  })
  void rejectsAnOverrideThatBreaksOrderingOrSafetyNamingTheKeyAndValue(String key, String value) {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context(key, value)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka." + key + "=" + value)
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.kafka." + key);
  }

  @Test
  void rejectsADeliveryTimeoutKafkaWouldRefuseWithAHint() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(
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

    assertThatThrownBy(() -> KafkaRelayConfig.from(context))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.topic is not set");
  }

  @Test
  void rejectsAnIllegalTopicName() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context("topic", "orders/paid")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.topic=orders/paid is not a legal Kafka topic");
  }

  @Test
  void requiresTheBootstrapServers() {
    RelayContext context = new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30),
        Map.of("topic", "orders"));

    assertThatThrownBy(() -> KafkaRelayConfig.from(context))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.bootstrap.servers is not set");
  }

  @Test
  void rejectsARelayTimeoutTooShortForRetries() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context(Duration.ofMillis(500))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.relay-timeout=500ms is too short for the kafka relay");
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
  void validateReportsEveryProblemAtOnceNamingTheNearestKnownKey() {
    RelayContext context = new RelayContext("orders", Ordering.GROUP, 4, Duration.ofSeconds(30),
        Map.of("topic", "orders/paid", "bootstrap.server", "127.0.0.1:9", "acks", "1",
            "compression.type", "brotli", "fencnig", "none", "linger.ms", "soon"));

    assertThatThrownBy(() -> new KafkaRelayProvider().validate(context))
        .isInstanceOfSatisfying(OutboxConfigurationException.class, first -> {
          List<String> messages = new ArrayList<>();
          messages.add(first.getMessage());
          for (Throwable more : first.getSuppressed()) {
            messages.add(more.getMessage());
          }
          assertThat(messages).hasSize(7).anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.kafka.bootstrap.server is not a setting")
                  .contains("Did you mean outbox.orders.kafka.bootstrap.servers?"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.kafka.fencnig is not a setting")
                  .contains("Did you mean outbox.orders.kafka.fencing?"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.kafka.bootstrap.servers is not set"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.kafka.topic=orders/paid is not a legal Kafka topic"))
              .anySatisfy(message -> assertThat(message).contains("outbox.orders.kafka.acks=1"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.kafka.compression.type=brotli is refused by the Kafka "
                      + "producer"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.kafka.linger.ms=soon"));
        });
  }

  @Test
  void anUnknownKeyFarFromEveryKnownOneIsRejectedWithoutAGuess() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context("schema.registry.url", "http://x")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.schema.registry.url is not a setting of the "
            + "kafka relay of outbox 'orders'")
        .hasMessageContaining("[bootstrap.servers, fencing, topic, transactional-id-prefix] and any Kafka"
            + " producer property")
        .hasMessageNotContaining("Did you mean");
  }

  @Test
  void aPasswordKafkaRefusesIsNotShownInTheMessage() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context("ssl.key.password", "s3cret",
            "ssl.keystore.type", "JKS", "sasl.mechanism", "PLAIN", "retries", "x")))
        .isInstanceOf(OutboxConfigurationException.class)
        .satisfies(e -> assertThat(e.getMessage() + List.of(e.getSuppressed()))
            .doesNotContain("s3cret"));
  }

  @Test
  void fencingIsTransactionalByDefaultWithATransactionIdPerPartitionAndTheRelayTimeout() {
    KafkaRelayConfig settings = KafkaRelayConfig.from(context());

    assertThat(settings.fencing()).isEqualTo(KafkaSettings.Fencing.TRANSACTIONAL);
    assertThat(settings.transactionalId(3)).isEqualTo("outboxer-orders-3");
    assertThat(settings.producerProperties())
        .containsEntry("transaction.timeout.ms", 30_000)
        .doesNotContainKeys("transactional.id", "fencing", "transactional-id-prefix");
  }

  @Test
  void theTransactionalIdPrefixAndTheTransactionTimeoutCanBeChosen() {
    KafkaRelayConfig settings = KafkaRelayConfig.from(context(
        "transactional-id-prefix", "billing-orders", "transaction.timeout.ms", "20000"));

    assertThat(settings.transactionalId(0)).isEqualTo("billing-orders-0");
    assertThat(settings.producerProperties()).containsEntry("transaction.timeout.ms", "20000");
  }

  @Test
  void fencingNoneUsesNoTransactions() {
    KafkaRelayConfig settings = KafkaRelayConfig.from(context("fencing", "NONE"));

    assertThat(settings.fencing()).isEqualTo(KafkaSettings.Fencing.NONE);
    assertThat(settings.producerProperties()).doesNotContainKey("transaction.timeout.ms");
  }

  @Test
  void anUnknownFencingModeIsRejectedWithTheChoices() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context("fencing", "strict")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.fencing=strict is not a fencing mode")
        .hasMessageContaining("transactional")
        .hasMessageContaining("none");
  }

  @Test
  void constraintsKeepRoomForHeadersAndKeyInsideMaxRequestSize() {
    KafkaRelayProvider provider = new KafkaRelayProvider();

    MessageConstraints defaults = provider.constraints(context());
    MessageConstraints larger = provider.constraints(context("max.request.size", "4194304"));
    MessageConstraints bufferBound = provider.constraints(
        context("max.request.size", "4194304", "buffer.memory", "2097152"));

    assertThat(defaults.maxPayloadBytes()).isEqualTo(1_048_576 - KafkaConstraints.RESERVED_BYTES);
    assertThat(defaults.maxHeaderBytes()).isEqualTo(65_536);
    assertThat(defaults.checkHeader("x-tenant", "acme")).isNull();
    assertThat(larger.maxPayloadBytes()).isEqualTo(4_194_304 - KafkaConstraints.RESERVED_BYTES);
    assertThat(bufferBound.maxPayloadBytes()).isEqualTo(2_097_152 - KafkaConstraints.RESERVED_BYTES);
  }

  @Test
  void aMaxRequestSizeWithoutRoomForAPayloadIsRejected() {
    assertThatThrownBy(() -> KafkaRelayConfig.from(context("max.request.size", "65536")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.kafka.max.request.size=65536 leaves too little room")
        .hasMessageContaining("raise it to at least " + (KafkaConstraints.RESERVED_BYTES + 1024));
  }

  @Test
  void theCatalogListsTheRelaysKeysForTheReferenceAndIsFoundByServiceLoader() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(KafkaSettings.class);
    SettingsDeclaration declaration = new KafkaSettings().declarations().get(0);

    assertThat(declaration.prefix()).isEqualTo("outbox.<name>.kafka.");
    assertThat(declaration.appliesWhen()).contains("outbox.<name>.relay=kafka");
    assertThat(declaration.keys()).containsExactly("topic", "fencing", "transactional-id-prefix",
        "bootstrap.servers");
    assertThat(declaration.settings()).allSatisfy(setting -> assertThat(setting.meaning()).isNotBlank());
    assertThat(declaration.passThroughKeys()).contains("linger.ms", "compression.type");
  }

  @Test
  void providerIsNamedKafkaAndCreatesAClosableRelayWithoutConnecting() {
    KafkaRelayProvider provider = new KafkaRelayProvider();

    assertThat(provider.name()).isEqualTo("kafka");
    Relay relay = provider.create(context());
    assertThat(relay).hasToString("KafkaRelay[outbox=orders, topic=orders, fencing=transactional]");
    relay.close();
    relay.close();
  }
}
