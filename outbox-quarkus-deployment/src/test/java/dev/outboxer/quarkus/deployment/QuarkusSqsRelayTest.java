package dev.outboxer.quarkus.deployment;

import dev.outboxer.sqs.EmbeddedElasticMq;
import dev.outboxer.sqs.QueueReader;
import io.quarkus.test.QuarkusUnitTest;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@link BrokerRelayScenarios} through outbox-sqs-relay ({@code outbox.orders.relay=sqs}) to a
 * FIFO queue of ElasticMQ in the test JVM (outbox-sqs-relay's test server), received back in the
 * queue's order per message group.
 */
class QuarkusSqsRelayTest extends BrokerRelayScenarios {

  @RegisterExtension @Order(1)
  static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  @RegisterExtension @Order(2)
  static final QuarkusUnitTest APP = application("sqs", () -> {
    String queueUrl = SQS.createFifoQueue("outboxer-quarkus-orders.fifo");
    SQS.relaySettings(queueUrl).forEach((key, value) -> QuarkusSqsRelayTest.APP.overrideConfigKey("outbox.orders.sqs." + key, value));
    QuarkusSqsRelayTest.APP.overrideConfigKey("outbox.orders.sqs.endpoint", SQS.endpoint().toString());
  }, QuarkusSqsRelayTest.class);

  @Override
  List<String> consume(int count) throws InterruptedException {
    try (SqsClient client = EmbeddedElasticMq.client(URI.create(config("outbox.orders.sqs.endpoint")))) {
      QueueReader queue = new QueueReader(client, config("outbox.orders.sqs.queue-url"));
      long deadline = System.nanoTime() + RECEIVE_WITHIN.toNanos();
      while (queue.poll() < count && System.nanoTime() < deadline) {
        Thread.sleep(100);   // the queue answered empty: the relay has not sent the rest yet
      }
      return queue.received().stream().map(QueueReader.Received::body).toList();
    }
  }
}
