package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.sqs.QueueReader.Received;
import dev.outboxer.testing.OutboxRecords;
import dev.outboxer.testing.TestRelayBatch;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Whole calls that fail: a throttling or unreachable endpoint (a proxy in front of ElasticMQ), a
 * queue that does not exist. Each fails the batch, so that the core retries every unconfirmed
 * record; the retry, a new batch with the same records, then delivers them once and in order.
 */
class SqsRelayEndpointFailureTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(8);

  private final OutboxRecords records = new OutboxRecords("orders");
  private UnreliableEndpoint endpoint;

  @BeforeEach
  void proxy() throws Exception {
    endpoint = new UnreliableEndpoint(SQS.endpoint());
  }

  @AfterEach
  void closeProxy() {
    endpoint.close();
  }

  private Relay relay(String queueUrl, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(SQS.relaySettings(queueUrl));
    settings.put(SqsRelayProvider.ENDPOINT, endpoint.endpoint().toString());
    settings.putAll(extra);
    return new SqsRelayProvider()
        .create(new RelayContext("orders", Ordering.GROUP, 1, RELAY_TIMEOUT, settings));
  }

  @Test
  void a_throttling_endpoint_fails_the_batch_after_the_sdk_retries_and_the_retry_delivers()
      throws Exception {
    String queue = SQS.createFifoQueue("throttled.fifo");
    List<OutboxRecord> sent = List.of(records.next(0, "a"), records.next(0, "b"),
        records.next(0, "a"));

    try (Relay relay = relay(queue, Map.of())) {
      endpoint.throttle(true);
      TestRelayBatch throttled = new TestRelayBatch(Ordering.GROUP, sent, RELAY_TIMEOUT);
      assertThatThrownBy(() -> relay.relay(throttled))
          .isInstanceOf(SqsRelayException.class)
          .hasMessageContaining("Outbox 'orders' could not send 2 message(s) to SQS queue " + queue)
          .hasMessageContaining("the batch is retried with backoff")
          .hasMessageContaining("SQS throttled the calls and the SDK's retries ran out");
      throttled.end();
      assertThat(throttled.outcomes()).isEmpty();
      assertThat(endpoint.throttledRequests()).as("the SDK retried the throttled call")
          .isGreaterThan(1);

      endpoint.throttle(false);
      TestRelayBatch retry = new TestRelayBatch(Ordering.GROUP, sent, RELAY_TIMEOUT);
      relay.relay(retry);
      retry.end();
      assertThat(retry.confirmed()).containsExactlyElementsOf(sent);
    }
    QueueReader reader = new QueueReader(SQS.client(), queue);
    reader.poll();
    assertThat(reader.received()).extracting(Received::outboxId)
        .containsExactlyInAnyOrder(sent.get(0).id(), sent.get(1).id(), sent.get(2).id());
    assertThat(reader.idsByGroupKey().get("a")).containsExactly(sent.get(0).id(), sent.get(2).id());
  }

  @Test
  void an_endpoint_lost_after_sqs_stored_a_call_fails_the_batch_and_the_retry_delivers_each_once()
      throws Exception {
    String queue = SQS.createFifoQueue("unreachable.fifo");
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord a2 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");

    try (Relay relay = relay(queue, Map.of())) {
      // SQS stores the first call (a1, b1), then the endpoint goes away before the answer
      // reaches the relay: the SDK's retries find nothing listening.
      endpoint.afterForward(call -> endpoint.down());
      TestRelayBatch broken =
          new TestRelayBatch(Ordering.GROUP, List.of(a1, a2, b1), RELAY_TIMEOUT);
      long start = System.nanoTime();
      assertThatThrownBy(() -> relay.relay(broken))
          .isInstanceOf(SqsRelayException.class)
          .hasMessageContaining("could not send 2 message(s) to SQS queue " + queue)
          .hasMessageContaining("Connection refused")
          .hasMessageContaining("(endpoint " + endpoint.endpoint() + ")");
      broken.end();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(RELAY_TIMEOUT);
      assertThat(broken.outcomes()).as("no answer, no outcome").isEmpty();

      endpoint.afterForward(call -> {});
      endpoint.up();
      // The core retries every unconfirmed record, a1 and b1 included: SQS drops those as
      // duplicates of the stored ones (same MessageDeduplicationId within five minutes).
      TestRelayBatch retry =
          new TestRelayBatch(Ordering.GROUP, List.of(a1, a2, b1), RELAY_TIMEOUT);
      relay.relay(retry);
      retry.end();
      assertThat(retry.confirmed()).containsExactly(a1, a2, b1);
    }
    QueueReader reader = new QueueReader(SQS.client(), queue);
    reader.poll();
    assertThat(reader.received()).extracting(Received::outboxId)
        .as("each once: the re-sent a1 and b1 were deduplicated")
        .containsExactlyInAnyOrder(a1.id(), a2.id(), b1.id());
    assertThat(reader.idsByGroupKey().get("a")).containsExactly(a1.id(), a2.id());
  }

  @Test
  void a_queue_that_does_not_exist_fails_the_batch_naming_the_queue_and_the_key() {
    String queue = SQS.endpoint() + "/000000000000/no-such-queue.fifo";
    try (Relay relay = relay(queue, Map.of())) {
      TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"));
      assertThatThrownBy(() -> relay.relay(batch))
          .isInstanceOf(SqsRelayException.class)
          .hasMessageContaining("SQS queue 'no-such-queue.fifo' of outbox 'orders' does not exist"
              + " at " + queue + " (outbox.orders.sqs.queue-url=" + queue + "): create it, or fix"
              + " the setting; the batch is retried with backoff");
      assertThat(batch.outcomes()).isEmpty();
    }
  }

  @Test
  void a_queue_given_by_name_is_looked_up_once_before_the_first_batch() throws Exception {
    String queue = SQS.createFifoQueue("by-name.fifo");
    Map<String, String> settings = new HashMap<>(SQS.relaySettings(queue));
    settings.remove(SqsRelayProvider.QUEUE_URL);
    settings.put(SqsRelayProvider.QUEUE_NAME, "by-name.fifo");
    settings.put(SqsRelayProvider.ENDPOINT, endpoint.endpoint().toString());
    try (Relay relay = new SqsRelayProvider().create(
        new RelayContext("orders", Ordering.GROUP, 1, RELAY_TIMEOUT, settings))) {
      TestRelayBatch first = TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"));
      relay.relay(first);
      assertThat(first.confirmed()).hasSize(1);
      // (the SDK may have retried the look-up on a slow machine: count from here)
      int lookUps = endpoint.calls("GetQueueUrl").size();
      assertThat(lookUps).isPositive();
      TestRelayBatch second = TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"));
      relay.relay(second);
      assertThat(second.confirmed()).hasSize(1);
      assertThat(endpoint.calls("GetQueueUrl")).as("no second look-up").hasSize(lookUps);
    }
    assertThat(new QueueReader(SQS.client(), queue).poll()).isEqualTo(2);
  }

  @Test
  void a_queue_name_that_does_not_exist_fails_each_batch_until_it_is_created() throws Exception {
    Map<String, String> settings = new HashMap<>(SQS.relaySettings("unused"));
    settings.remove(SqsRelayProvider.QUEUE_URL);
    settings.put(SqsRelayProvider.QUEUE_NAME, "later.fifo");
    settings.put(SqsRelayProvider.ENDPOINT, SQS.endpoint().toString());
    try (Relay relay = new SqsRelayProvider().create(
        new RelayContext("orders", Ordering.GROUP, 1, RELAY_TIMEOUT, settings))) {
      OutboxRecord record = records.next(0, "a");
      assertThatThrownBy(() -> relay.relay(TestRelayBatch.of(Ordering.GROUP, record)))
          .isInstanceOf(SqsRelayException.class)
          .hasMessageContaining("SQS queue 'later.fifo' of outbox 'orders' does not exist"
              + " (outbox.orders.sqs.queue-name=later.fifo): create it");

      String queue = SQS.createFifoQueue("later.fifo");
      TestRelayBatch retry = TestRelayBatch.of(Ordering.GROUP, record);
      relay.relay(retry);
      assertThat(retry.confirmed()).containsExactly(record);
      assertThat(new QueueReader(SQS.client(), queue).poll()).isEqualTo(1);
    }
  }
}
