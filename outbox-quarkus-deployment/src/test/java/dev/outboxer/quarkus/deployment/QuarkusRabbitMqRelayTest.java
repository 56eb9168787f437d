package dev.outboxer.quarkus.deployment;

import com.rabbitmq.client.GetResponse;
import dev.outboxer.rabbitmq.LocalRabbitMq;
import io.quarkus.test.QuarkusUnitTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BrokerRelayScenarios} through outbox-rabbitmq-relay ({@code outbox.orders.relay=rabbitmq})
 * to the local RabbitMQ (127.0.0.1:5672, guest/guest): a fanout exchange of the test's own with one
 * queue, drained back in queue order.
 */
class QuarkusRabbitMqRelayTest extends BrokerRelayScenarios {

  /** The test's exchange and queue, made before the application starts and deleted after it stopped. */
  private static LocalRabbitMq rabbit;

  @RegisterExtension
  static final QuarkusUnitTest APP = application("rabbitmq", () -> {
    try {
      rabbit = new LocalRabbitMq();
      String exchange = rabbit.exchange("fanout");
      String queue = rabbit.queue();
      rabbit.bind(queue, exchange, "");
      LocalRabbitMq.relaySettings(exchange)
          .forEach((key, value) -> QuarkusRabbitMqRelayTest.APP.overrideConfigKey("outbox.orders.rabbitmq." + key, value));
      QuarkusRabbitMqRelayTest.APP.overrideConfigKey("test.rabbitmq.queue", queue);
    } catch (Exception e) {
      throw new IllegalStateException("cannot set up the test's exchange and queue on the local RabbitMQ", e);
    }
  }, QuarkusRabbitMqRelayTest.class)
      .setAfterAllCustomizer(() -> {
        try {
          if (rabbit != null) {
            rabbit.close();
          }
        } catch (Exception e) {
          throw new IllegalStateException("cannot delete the test's exchange and queue", e);
        }
      });

  @Override
  List<String> consume(int count) throws Exception {
    List<String> payloads = new ArrayList<>();
    try (LocalRabbitMq reader = new LocalRabbitMq()) {
      long deadline = System.nanoTime() + RECEIVE_WITHIN.toNanos();
      while (payloads.size() < count && System.nanoTime() < deadline) {
        List<GetResponse> drained = reader.drain(config("test.rabbitmq.queue"));
        drained.forEach(message -> payloads.add(new String(message.getBody(), StandardCharsets.UTF_8)));
        if (drained.isEmpty()) {
          Thread.sleep(100);   // the queue is empty: the relay has not sent the rest yet
        }
      }
    }
    return payloads;
  }
}
