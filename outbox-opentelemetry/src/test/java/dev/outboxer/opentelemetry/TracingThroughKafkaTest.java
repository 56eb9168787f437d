package dev.outboxer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.kafka.EmbeddedKafkaBroker;
import dev.outboxer.kafka.OutboxKafkaHeaders;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The trace through the real Kafka relay: a span around publish on PostgreSQL (in a trace that
 * arrived with a {@code tracestate}), the core's worker relays with {@code outbox.traced.relay=kafka}
 * and its transactional producer to the embedded KRaft broker of outbox-kafka-relay's test-jar, and
 * a {@code read_committed} consumer finds {@code traceparent} and {@code tracestate} as record
 * headers. Continuing the trace from them with the W3C propagator, as consumer instrumentation
 * does, makes the consumer's span a child of the relay span, in the publisher's trace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingThroughKafkaTest {

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private static final String TOPIC = "outboxer-traced";
  /** The trace the publisher's request arrived in: fixed, so that the test names the ids it expects. */
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN_ID = "00f067aa0ba902b7";
  private static final TraceState TRACE_STATE = TraceState.builder().put("vendor", "publisher").build();

  /** Reads a Kafka record's headers for the propagator: the last value of a name, as UTF-8. */
  private static final TextMapGetter<Headers> KAFKA_HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Headers carrier) {
      return StreamSupport.stream(carrier.spliterator(), false).map(Header::key).distinct().toList();
    }

    @Override
    public String get(Headers carrier, String key) {
      Header header = carrier == null ? null : carrier.lastHeader(key);
      return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
  };

  private OutboxTestContainer container;

  @BeforeAll
  void start() throws Exception {
    KAFKA.createTopic(TOPIC, 1, Map.of());
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.traced.relay", "kafka")
        .config("outbox.traced.poll-interval", "100ms")
        .config("outbox.traced.kafka.topic", TOPIC)
        .config("outbox.traced.kafka.bootstrap.servers", KAFKA.bootstrapServers())
        .beans(InMemoryTelemetry.class)
        .start();
  }

  @AfterAll
  void stop() {
    // The container first: its workers close their producers while the broker is up.
    if (container != null) {
      container.close();
    }
  }

  @Test
  void a_consumer_continuing_from_the_kafka_record_headers_is_a_child_of_the_relay_span_in_the_publishers_trace()
      throws Exception {
    InMemoryTelemetry.EXPORTER.reset();
    SpanContext caller = SpanContext.createFromRemoteParent(TRACE_ID, CALLER_SPAN_ID, TraceFlags.getSampled(),
        TRACE_STATE);
    Span checkout = InMemoryTelemetry.testTracer().spanBuilder("checkout").setSpanKind(SpanKind.SERVER)
        .setParent(Context.root().with(Span.wrap(caller))).startSpan();
    long id = InMemoryTelemetry.inSpan(checkout,
        () -> container.inTransaction(() -> container.select(Outbox.class).publish("traced", new Ping("order:9", 1))));

    ConsumerRecord<String, byte[]> record = consumeOne();
    assertThat(header(record, OutboxKafkaHeaders.ID)).isEqualTo(String.valueOf(id));
    Span consumerSpan = InMemoryTelemetry.testTracer().spanBuilder(TOPIC + " process")
        .setSpanKind(SpanKind.CONSUMER)
        .setParent(W3CTraceContextPropagator.getInstance().extract(Context.root(), record.headers(), KAFKA_HEADERS))
        .startSpan();
    consumerSpan.end();

    await().atMost(Duration.ofSeconds(10)).until(() -> !InMemoryTelemetry.spans("publish traced").isEmpty());
    SpanData relaySpan = InMemoryTelemetry.spans("publish traced").get(0);
    SpanData consumed = InMemoryTelemetry.spans(TOPIC + " process").get(0);
    assertThat(relaySpan.getAttributes().get(AttributeKey.longKey("outboxer.message.id"))).isEqualTo(id);
    assertThat(relaySpan.getAttributes().get(AttributeKey.stringKey("outboxer.outcome"))).isEqualTo("confirmed");
    assertThat(checkout.getSpanContext().getTraceId()).isEqualTo(TRACE_ID);
    assertThat(relaySpan.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(relaySpan.getParentSpanId()).isEqualTo(checkout.getSpanContext().getSpanId());
    // On the record: the relay span's context, not the publisher's, with the caller's tracestate.
    assertThat(header(record, "traceparent")).isEqualTo("00-" + TRACE_ID + "-" + relaySpan.getSpanId() + "-01");
    assertThat(header(record, "tracestate")).isEqualTo("vendor=publisher");
    assertThat(consumed.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(consumed.getParentSpanId()).isEqualTo(relaySpan.getSpanId());
    assertThat(consumed.getSpanContext().getTraceState().get("vendor")).isEqualTo("publisher");
  }

  /** The first record of the topic, read as a consumer of committed records only (the relay sends in transactions). */
  private ConsumerRecord<String, byte[]> consumeOne() {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> received = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(received::add);
        return !received.isEmpty();
      });
    }
    assertThat(received).as("records on %s", TOPIC).hasSize(1);
    return received.get(0);
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    return KAFKA_HEADERS.get(record.headers(), name);
  }
}
