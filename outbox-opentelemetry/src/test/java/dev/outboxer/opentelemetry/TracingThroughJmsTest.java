package dev.outboxer.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import java.time.Duration;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The trace through the real JMS relay: a span around publish on PostgreSQL (in a trace that
 * arrived with a {@code tracestate}), the core's worker relays with {@code outbox.traced.relay=jms}
 * to an embedded Artemis broker in the same XA transaction, and the consumer finds {@code
 * traceparent} (the relay span's context) and {@code tracestate} (the caller's) as message
 * properties. Continuing the trace from them makes the consumer's span a child of the relay span,
 * in the publisher's trace, with the caller's trace state.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingThroughJmsTest {

  /** The trace the publisher's request arrived in: fixed, so that the test names the ids it expects. */
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN_ID = "00f067aa0ba902b7";
  private static final TraceState TRACE_STATE = TraceState.builder().put("vendor", "publisher").build();

  private EmbeddedActiveMQ broker;
  private OutboxTestContainer container;

  @BeforeAll
  void start() throws Exception {
    broker = new EmbeddedActiveMQ().setConfiguration(new ConfigurationImpl()
        .setName("outbox-opentelemetry-test")
        .setPersistenceEnabled(false)
        .setSecurityEnabled(false)
        .setJMXManagementEnabled(false)
        .addAcceptorConfiguration("in-vm", TracedJms.URL)).start();
    broker.getActiveMQServer().createQueue(QueueConfiguration.of(TracedJms.QUEUE).setAddress(TracedJms.QUEUE)
        .setRoutingType(RoutingType.ANYCAST).setAutoCreateAddress(true));
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.traced.relay", "jms")
        .config("outbox.traced.jms.connection-factory", "jms/tracedFactory")
        .config("outbox.traced.jms.destination", "jms/traced")
        .beans(TracedJms.class, InMemoryTelemetry.class)
        .start();
  }

  @AfterAll
  void stop() throws Exception {
    if (container != null) {
      container.close();
    }
    broker.stop();
  }

  @Test
  void a_consumer_continuing_from_the_jms_message_properties_is_a_child_of_the_relay_span_in_the_publishers_trace_and_state()
      throws Exception {
    InMemoryTelemetry.EXPORTER.reset();
    SpanContext caller = SpanContext.createFromRemoteParent(TRACE_ID, CALLER_SPAN_ID, TraceFlags.getSampled(),
        TRACE_STATE);
    Span checkout = InMemoryTelemetry.testTracer().spanBuilder("checkout").setSpanKind(SpanKind.SERVER)
        .setParent(Context.root().with(Span.wrap(caller))).startSpan();
    long id = InMemoryTelemetry.inSpan(checkout,
        () -> container.inTransaction(() -> container.select(Outbox.class).publish("traced", new Ping("order:9", 1))));

    Message message;
    try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(TracedJms.URL);
        JMSContext context = factory.createContext();
        JMSConsumer consumer = context.createConsumer(context.createQueue(TracedJms.QUEUE))) {
      message = consumer.receive(Duration.ofSeconds(20).toMillis());
    }
    assertThat(message).as("the relayed message").isNotNull();
    assertThat(message.getLongProperty("outboxId")).isEqualTo(id);
    Map<String, String> properties = new HashMap<>();
    for (Enumeration<?> names = message.getPropertyNames(); names.hasMoreElements(); ) {
      String name = (String) names.nextElement();
      properties.put(name, message.getObjectProperty(name).toString());
    }
    Span consumerSpan = InMemoryTelemetry.testTracer().spanBuilder("traced process").setSpanKind(SpanKind.CONSUMER)
        .setParent(TraceHeaders.extract(properties)).startSpan();
    consumerSpan.end();

    await().atMost(Duration.ofSeconds(10)).until(() -> !InMemoryTelemetry.spans("publish traced").isEmpty());
    SpanData relaySpan = InMemoryTelemetry.spans("publish traced").get(0);
    SpanData consumed = InMemoryTelemetry.spans("traced process").get(0);
    assertThat(relaySpan.getAttributes().get(AttributeKey.longKey("outboxer.message.id"))).isEqualTo(id);
    assertThat(relaySpan.getAttributes().get(AttributeKey.stringKey("outboxer.outcome"))).isEqualTo("confirmed");
    assertThat(relaySpan.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(relaySpan.getParentSpanId()).isEqualTo(checkout.getSpanContext().getSpanId());
    // On the message: the relay span's context, not the publisher's, with the caller's tracestate.
    assertThat(message.getStringProperty("traceparent")).isEqualTo("00-" + TRACE_ID + "-" + relaySpan.getSpanId() + "-01");
    assertThat(message.getStringProperty("tracestate")).isEqualTo("vendor=publisher");
    assertThat(consumed.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(consumed.getParentSpanId()).isEqualTo(relaySpan.getSpanId());
    assertThat(consumed.getSpanContext().getTraceState().get("vendor")).isEqualTo("publisher");
  }
}
