package dev.outboxer.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.rabbitmq.client.GetResponse;
import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.StandardHeaders;
import dev.outboxer.testing.ForwardingRelayBatch;
import dev.outboxer.testing.OutboxRecords;
import dev.outboxer.testing.TestRelayBatch;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay on its own against the local RabbitMQ, driven with the test kit's {@link
 * TestRelayBatch}: every unit of the {@link Relay} contract (confirmed only after the broker's ack,
 * order per unit, a failure holding back its unit only, fencing) and each failure a clear one.
 * Every test has its own exchange and queues, deleted afterwards.
 */
class RabbitRelayTest {

  private LocalRabbitMq rabbit;
  private final List<Relay> relays = new ArrayList<>();
  private final OutboxRecords records = new OutboxRecords("orders");

  @BeforeEach
  void connect() throws Exception {
    rabbit = new LocalRabbitMq();
  }

  @AfterEach
  void cleanUp() throws Exception {
    relays.forEach(Relay::close);
    rabbit.close();
  }

  private Relay relay(Ordering ordering, Map<String, String> settings) {
    Relay relay = new RabbitRelayProvider().create(
        new RelayContext("orders", ordering, 4, Duration.ofSeconds(10), settings));
    relays.add(relay);
    return relay;
  }

  private static Map<String, String> settings(String exchange, String... keyValues) {
    Map<String, String> settings = new HashMap<>(LocalRabbitMq.relaySettings(exchange));
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put(keyValues[i], keyValues[i + 1]);
    }
    return settings;
  }

  /** A direct exchange with one queue bound for the fixed routing key {@code all}. */
  private String[] exchangeWithOneQueue() throws Exception {
    String exchange = rabbit.directExchange();
    String queue = rabbit.queue();
    rabbit.bind(queue, exchange, "all");
    return new String[] {exchange, queue};
  }

  private static TestRelayBatch relayed(Relay relay, TestRelayBatch batch) throws Exception {
    try {
      relay.relay(batch);
    } finally {
      batch.end();
    }
    assertThat(batch.violations()).isEmpty();
    return batch;
  }

  @Test
  void every_record_is_confirmed_once_the_broker_acked_it_and_carries_the_standard_properties_and_headers()
      throws Exception {
    String[] topology = exchangeWithOneQueue();
    Relay relay = relay(Ordering.GROUP, settings(topology[0], "routing-key", "all"));
    OutboxRecord first = records.next(2, "order-1", Map.of("x-tenant", "acme"));
    OutboxRecord unordered = records.next(2, null);

    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, first, unordered).fencingToken(42));

    assertThat(batch.confirmed()).containsExactly(first, unordered);
    List<GetResponse> received = rabbit.drain(topology[1]);
    assertThat(received).hasSize(2);
    GetResponse message = received.get(0);
    assertThat(message.getEnvelope().getRoutingKey()).isEqualTo("all");
    assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).isEqualTo(first.payloadText());
    assertThat(message.getProps().getMessageId()).isEqualTo(Long.toString(first.id()));
    assertThat(message.getProps().getType()).isEqualTo("OrderPaid");
    assertThat(message.getProps().getContentType()).isEqualTo("application/json");
    assertThat(message.getProps().getDeliveryMode()).isEqualTo(2);
    assertThat(message.getProps().getTimestamp().toInstant().getEpochSecond())
        .isEqualTo(first.createdAt().getEpochSecond());
    assertThat(headers(message))
        .containsEntry(StandardHeaders.ID, Long.toString(first.id()))
        .containsEntry(StandardHeaders.OUTBOX, "orders")
        .containsEntry(StandardHeaders.TYPE, "OrderPaid")
        .containsEntry(StandardHeaders.CONTENT_TYPE, "application/json")
        .containsEntry(StandardHeaders.GROUP_KEY, "order-1")
        .containsEntry(StandardHeaders.PARTITION, "2")
        .containsEntry(StandardHeaders.FENCING_TOKEN, "42")
        .containsEntry("x-tenant", "acme");
    assertThat(headers(received.get(1))).doesNotContainKey(StandardHeaders.GROUP_KEY)
        .containsEntry(StandardHeaders.ID, Long.toString(unordered.id()));
  }

  @Test
  void without_a_fixed_routing_key_the_group_key_routes_and_a_message_without_one_is_routed_by_its_id()
      throws Exception {
    String exchange = rabbit.directExchange();
    String queue = rabbit.queue();
    OutboxRecord grouped = records.next(0, "order-7");
    OutboxRecord unordered = records.next(0, null);
    OutboxRecord longKey = records.next(0, "k".repeat(300));
    rabbit.bind(queue, exchange, "order-7");
    rabbit.bind(queue, exchange, Long.toString(unordered.id()));
    rabbit.bind(queue, exchange, "sha256-" + java.util.HexFormat.of().formatHex(java.security.MessageDigest
        .getInstance("SHA-256").digest("k".repeat(300).getBytes(StandardCharsets.UTF_8))));
    Relay relay = relay(Ordering.GROUP, settings(exchange));

    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, grouped, unordered, longKey));

    assertThat(batch.confirmed()).containsExactly(grouped, unordered, longKey);
    assertThat(rabbit.drainIds(queue)).containsExactly(grouped.id(), unordered.id(), longKey.id());
  }

  @Test
  void records_reach_the_queue_in_outbox_order_per_group_with_several_groups_interleaved() throws Exception {
    String[] topology = exchangeWithOneQueue();
    Relay relay = relay(Ordering.GROUP, settings(topology[0], "routing-key", "all"));
    List<OutboxRecord> batchRecords = new ArrayList<>();
    Map<String, List<Long>> expected = new LinkedHashMap<>();
    for (int i = 0; i < 60; i++) {
      OutboxRecord record = records.next(1, "order-" + i % 4);
      batchRecords.add(record);
      expected.computeIfAbsent(record.groupKey(), key -> new ArrayList<>()).add(record.id());
    }

    TestRelayBatch batch = relayed(relay,
        new TestRelayBatch(Ordering.GROUP, batchRecords, Duration.ofSeconds(10)));

    assertThat(batch.confirmed()).hasSize(60);
    Map<String, List<Long>> received = new LinkedHashMap<>();
    for (GetResponse message : rabbit.drain(topology[1])) {
      received.computeIfAbsent(headers(message).get(StandardHeaders.GROUP_KEY), key -> new ArrayList<>())
          .add(Long.parseLong(message.getProps().getMessageId()));
    }
    assertThat(received).isEqualTo(expected);
  }

  @Test
  void an_unroutable_message_fails_its_record_and_holds_back_only_the_rest_of_its_group() throws Exception {
    String exchange = rabbit.directExchange();
    String queue = rabbit.queue();
    rabbit.bind(queue, exchange, "order-a");
    rabbit.bind(queue, exchange, "order-b");
    Relay relay = relay(Ordering.GROUP, settings(exchange));
    OutboxRecord a1 = records.next(0, "order-a");
    OutboxRecord lost1 = records.next(0, "order-nowhere");
    OutboxRecord a2 = records.next(0, "order-a");
    OutboxRecord lost2 = records.next(0, "order-nowhere");
    OutboxRecord b1 = records.next(0, "order-b");

    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, a1, lost1, a2, lost2, b1));

    assertThat(batch.confirmed()).containsExactly(a1, a2, b1);
    assertThat(batch.failure(lost1)).isInstanceOf(RabbitRelayException.class)
        .hasMessageContaining("message " + lost1.id())
        .hasMessageContaining("returned as unroutable")
        .hasMessageContaining("routing key 'order-nowhere'")
        .hasMessageContaining("312 NO_ROUTE")
        .hasMessageContaining("outbox.orders.rabbitmq.exchange");
    assertThat(batch.outcome(lost2)).as("held back, never sent").isNull();
    // Wave by wave: the first record of every group, then the second.
    assertThat(rabbit.drainIds(queue)).containsExactly(a1.id(), b1.id(), a2.id());
  }

  @Test
  void without_the_mandatory_flag_an_unroutable_message_is_dropped_by_the_broker_and_counts_as_delivered()
      throws Exception {
    String exchange = rabbit.directExchange();
    Relay relay = relay(Ordering.GROUP, settings(exchange, "mandatory", "false"));
    OutboxRecord record = records.next(0, "order-nowhere");

    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, record));

    assertThat(batch.confirmed()).containsExactly(record);
  }

  @Test
  void a_nack_from_a_full_queue_fails_only_the_refused_records() throws Exception {
    String exchange = rabbit.directExchange();
    String queue = rabbit.queue(Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
    rabbit.bind(queue, exchange, "all");
    Relay relay = relay(Ordering.NONE, settings(exchange, "routing-key", "all"));
    OutboxRecord first = records.next(0, null);
    OutboxRecord second = records.next(0, null);

    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.NONE, first, second));

    assertThat(batch.confirmed()).containsExactly(first);
    assertThat(batch.failure(second)).isInstanceOf(RabbitRelayException.class)
        .hasMessageContaining("message " + second.id()).hasMessageContaining("nack");
    assertThat(rabbit.drainIds(queue)).containsExactly(first.id());
  }

  @Test
  void a_record_larger_than_max_message_size_fails_without_being_sent_and_its_group_only_is_held_back()
      throws Exception {
    String[] topology = exchangeWithOneQueue();
    Relay relay = relay(Ordering.GROUP, settings(topology[0], "routing-key", "all", "max-message-size", "1KB"));
    OutboxRecord large = records.next(0, "order-a", "application/octet-stream", new byte[2048]);
    OutboxRecord afterLarge = records.next(0, "order-a");
    OutboxRecord other = records.next(0, "order-b");

    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, large, afterLarge, other));

    assertThat(batch.confirmed()).containsExactly(other);
    assertThat(batch.failure(large)).hasMessageContaining("can never be sent")
        .hasMessageContaining("payload of 2048 bytes").hasMessageContaining("max-message-size");
    assertThat(batch.outcome(afterLarge)).isNull();
    assertThat(rabbit.drainIds(topology[1])).containsExactly(other.id());
  }

  @Test
  void a_message_larger_than_the_brokers_own_limit_fails_when_the_broker_closes_the_channel_and_the_next_go_on()
      throws Exception {
    String[] topology = exchangeWithOneQueue();
    Rabbitmqctl.run("eval", "application:set_env(rabbit, max_message_size, 4096).");
    try {
      // The relay's own limit left at its default (128 MiB): only the broker refuses the message.
      Relay relay = relay(Ordering.GROUP, settings(topology[0], "routing-key", "all"));
      OutboxRecord large = records.next(0, "order-a", "application/octet-stream", new byte[8192]);
      OutboxRecord afterLarge = records.next(0, "order-a");
      OutboxRecord small = records.next(0, "order-b");

      TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, large, afterLarge, small));

      assertThat(batch.failure(large)).isInstanceOf(RabbitRelayException.class)
          .hasMessageContaining("channel closed").hasMessageContaining("406 PRECONDITION_FAILED")
          .hasMessageContaining("larger than configured max size");
      assertThat(batch.outcome(afterLarge)).isNull();
      // small went out in the same wave as large, on the channel the broker then closed: it
      // was confirmed before, or failed with the channel and goes again.
      OutboxRecord next = records.next(0, "order-b");
      TestRelayBatch later = relayed(relay, TestRelayBatch.of(Ordering.GROUP, next));
      assertThat(later.confirmed()).as("a fresh channel for the next batch").containsExactly(next);
      List<Long> received = rabbit.drainIds(topology[1]);
      assertThat(received).doesNotContain(large.id()).endsWith(next.id());
      assertThat(received.contains(small.id())).isEqualTo(batch.confirmed(small));
    } finally {
      Rabbitmqctl.run("eval", "application:set_env(rabbit, max_message_size, 134217728).");
    }
  }

  @Test
  void a_deleted_queue_makes_its_records_unroutable_failures() throws Exception {
    String[] topology = exchangeWithOneQueue();
    Relay relay = relay(Ordering.GROUP, settings(topology[0], "routing-key", "all"));
    OutboxRecord before = records.next(0, "order-a");
    assertThat(relayed(relay, TestRelayBatch.of(Ordering.GROUP, before)).confirmed()).containsExactly(before);

    rabbit.deleteQueue(topology[1]);
    OutboxRecord after = records.next(0, "order-a");
    TestRelayBatch batch = relayed(relay, TestRelayBatch.of(Ordering.GROUP, after));

    assertThat(batch.failure(after)).hasMessageContaining("returned as unroutable");
  }

  @Test
  void a_deleted_exchange_fails_the_batch_naming_it_and_the_relay_recovers_once_it_is_back() throws Exception {
    String[] topology = exchangeWithOneQueue();
    Relay relay = relay(Ordering.GROUP, settings(topology[0], "routing-key", "all"));
    OutboxRecord before = records.next(0, "order-a");
    assertThat(relayed(relay, TestRelayBatch.of(Ordering.GROUP, before)).confirmed()).containsExactly(before);

    rabbit.deleteExchange(topology[0]);
    OutboxRecord a = records.next(0, "order-a");
    OutboxRecord b = records.next(0, "order-b");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, a, b);
    Throwable thrown = catchThrowable(() -> relay.relay(batch));
    batch.end(thrown);

    assertThat(thrown).isInstanceOf(RabbitRelayException.class)
        .hasMessageContaining("exchange '" + topology[0] + "' (outbox.orders.rabbitmq.exchange)")
        .hasMessageContaining("does not exist")
        .hasMessageContaining("404 NOT_FOUND");
    assertThat(batch.confirmed()).isEmpty();

    try (var channel = rabbit.channel()) {
      channel.exchangeDeclare(topology[0], "direct", true);
      channel.queueBind(topology[1], topology[0], "all");
    }
    TestRelayBatch again = relayed(relay, TestRelayBatch.of(Ordering.GROUP, a, b));
    assertThat(again.confirmed()).containsExactly(a, b);
    assertThat(rabbit.drainIds(topology[1])).containsExactly(before.id(), a.id(), b.id());
  }

  @Test
  void a_refused_connection_fails_the_batch_at_once_naming_the_broker() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Relay relay = relay(Ordering.GROUP, settings("orders", "port", Integer.toString(closedPort)));
    OutboxRecord record = records.next(0, "order-a");
    TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP, List.of(record), Duration.ofSeconds(5));

    Instant start = Instant.now();
    Throwable thrown = catchThrowable(() -> relay.relay(batch));

    assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(5));
    assertThat(thrown).isInstanceOf(RabbitRelayException.class)
        .hasMessageContaining("could not connect to RabbitMQ at amqp://guest@127.0.0.1:" + closedPort)
        .hasMessageContaining("outbox.orders.rabbitmq.port")
        .hasMessageContaining("Connection refused");
  }

  @Test
  void refused_credentials_fail_the_batch_naming_the_keys_without_the_password() throws Exception {
    Relay relay = relay(Ordering.GROUP, settings("orders", "username", "nobody", "password", "s3cr3t"));
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, records.next(0, "order-a"));

    Throwable thrown = catchThrowable(() -> relay.relay(batch));

    assertThat(thrown).isInstanceOf(RabbitRelayException.class)
        .hasMessageContaining("could not log in")
        .hasMessageContaining("outbox.orders.rabbitmq.password")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void a_lapsed_claim_stops_publishing_at_once() throws Exception {
    String[] topology = exchangeWithOneQueue();
    Relay relay = relay(Ordering.TOTAL, settings(topology[0], "routing-key", "all"));
    List<OutboxRecord> batchRecords = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batchRecords.add(records.next(3, "order-" + i));
    }
    TestRelayBatch inner = new TestRelayBatch(Ordering.TOTAL, batchRecords, Duration.ofSeconds(10));
    // The claim lapses as the second record is confirmed, as a worker paused past its lease sees it.
    RelayBatch lapsing = new LapsingAfterConfirms(inner, 2);

    relay.relay(lapsing);
    inner.end();

    assertThat(rabbit.drainIds(topology[1])).containsExactly(batchRecords.get(0).id(), batchRecords.get(1).id());
  }

  @Test
  void a_closed_relay_refuses_batches() throws Exception {
    Relay relay = relay(Ordering.GROUP, settings("orders"));
    relay.close();

    Throwable thrown = catchThrowable(() -> relay.relay(TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"))));

    assertThat(thrown).isInstanceOf(RabbitRelayException.class).hasMessageContaining("is closed");
  }

  private static Map<String, String> headers(GetResponse message) {
    Map<String, String> headers = new HashMap<>();
    message.getProps().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
    return headers;
  }

  /** A batch whose claim lapses when the relay confirms the {@code n}-th record. */
  private static final class LapsingAfterConfirms extends ForwardingRelayBatch {
    private final TestRelayBatch inner;
    private final int n;
    private final AtomicInteger confirms = new AtomicInteger();

    LapsingAfterConfirms(TestRelayBatch inner, int n) {
      super(inner);
      this.inner = inner;
      this.n = n;
    }

    @Override
    public void confirm(OutboxRecord record) {
      inner.confirm(record);
      if (confirms.incrementAndGet() == n) {
        inner.loseClaim();
      }
    }
  }
}
