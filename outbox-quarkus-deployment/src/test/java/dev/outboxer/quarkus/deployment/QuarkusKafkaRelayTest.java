package dev.outboxer.quarkus.deployment;

import dev.outboxer.kafka.EmbeddedKafkaBroker;
import dev.outboxer.kafka.TopicReader;
import io.quarkus.test.QuarkusUnitTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BrokerRelayScenarios} through outbox-kafka-relay ({@code outbox.orders.relay=kafka}, the
 * default transactional fencing) to the embedded KRaft broker of outbox-kafka-relay's tests, read
 * back with {@code read_committed}.
 */
class QuarkusKafkaRelayTest extends BrokerRelayScenarios {

  static final String TOPIC = "outboxer-quarkus-orders";

  @RegisterExtension @Order(1)
  static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  @RegisterExtension @Order(2)
  static final QuarkusUnitTest APP = application("kafka", () -> {
    try {
      KAFKA.createTopic(TOPIC, 3, Map.of());
    } catch (Exception e) {
      throw new IllegalStateException("cannot create the topic " + TOPIC, e);
    }
    QuarkusKafkaRelayTest.APP.overrideConfigKey("outbox.orders.kafka.bootstrap.servers", KAFKA.bootstrapServers());
  }, QuarkusKafkaRelayTest.class)
      .overrideConfigKey("outbox.orders.kafka.topic", TOPIC);

  @Override
  List<String> consume(int count) {
    return TopicReader.readAll(config("outbox.orders.kafka.bootstrap.servers"), TOPIC, count, RECEIVE_WITHIN).stream()
        .map(record -> new String(record.value(), StandardCharsets.UTF_8)).toList();
  }
}
