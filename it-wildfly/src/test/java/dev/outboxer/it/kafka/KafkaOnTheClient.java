package dev.outboxer.it.kafka;

import dev.outboxer.kafka.EmbeddedKafkaBroker;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * outbox-kafka-relay's {@link EmbeddedKafkaBroker} in the test client's JVM, with the topic the test
 * application relays to. Register it before {@code ArquillianExtension}: the deployment's
 * configuration names the broker's port, which is only known once it runs, and the topic must exist
 * before the relay's first send (the broker creates none by itself). Stops after the class, once
 * Arquillian has undeployed the application and with it the relay's producers.
 */
public final class KafkaOnTheClient implements BeforeAllCallback, AfterAllCallback {

  /** The topic of the outbox {@code events}. */
  public static final String TOPIC = "wildfly-events";
  /** Fewer Kafka partitions than groups: order must hold per key, not per partition only. */
  public static final int TOPIC_PARTITIONS = 3;

  private static final EmbeddedKafkaBroker BROKER = new EmbeddedKafkaBroker();

  /** {@code host:port} of the running broker. */
  public static String bootstrapServers() {
    return BROKER.bootstrapServers();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    BROKER.beforeAll(context);
    BROKER.createTopic(TOPIC, TOPIC_PARTITIONS, Map.of());
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    BROKER.afterAll(context);
  }
}
