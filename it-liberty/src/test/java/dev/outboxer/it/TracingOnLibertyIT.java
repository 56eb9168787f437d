package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.it.support.ProbeMessage;
import dev.outboxer.it.telemetry.HeaderRecordingRelay;
import dev.outboxer.it.telemetry.TracedPublishApplication;
import dev.outboxer.it.telemetry.TracedPublishResource;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.jboss.shrinkwrap.resolver.api.maven.Maven;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * outbox-opentelemetry under MicroProfile Telemetry 2.0 on Open Liberty ({@code mpTelemetry-2.0},
 * test server only: src/test/liberty). The deployment turns the SDK on for itself ({@code
 * otel.sdk.disabled=false}, app-level MicroProfile Config) and exports spans with the logging
 * exporter to messages.log; every other deployment on the shared server keeps the SDK off (the
 * default). A request arrives with a {@code traceparent} of a fixed trace id; MicroProfile Telemetry
 * continues it in the JAX-RS SERVER span, the resource publishes inside it, and the relay is handed
 * the message with a {@code traceparent} in that trace whose parent id is the relay span Outboxer
 * started (found in messages.log, in the same trace).
 */
@RequiresPostgres
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(ArquillianExtension.class)
class TracingOnLibertyIT {

  static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  static final String CALLER_SPAN_ID = "b7ad6b7169203331";

  /** A line of the logging exporter: {@code 'name' : traceId spanId KIND [tracer: scope:version] attributes}. */
  static final Pattern EXPORTED_SPAN =
      Pattern.compile("'([^']*)' : ([0-9a-f]{32}) ([0-9a-f]{16}) ([A-Z]+) \\[tracer: ([^\\]]*)\\] (.*)");

  @Deployment
  static WebArchive deployment() {
    WebArchive war = OrdersArchives.sample("orders-tracing.war", TracingOnLibertyIT.class, RequiresPostgres.class,
            RequiresPostgres.Condition.class, FreshPostgresSchema.class, Http.class, Http.Response.class,
            ProbeMessage.class, HeaderRecordingRelay.class, TracedPublishResource.class, TracedPublishApplication.class)
        .addAsLibraries(Maven.configureResolver().workOffline().loadPomFromFile("pom.xml")
            .resolve("dev.outboxer:outbox-opentelemetry").withoutTransitivity().asFile());
    return OrdersArchives.withConfig(war, Map.of(
        "outbox.traced.relay", "header-recording",
        "otel.sdk.disabled", "false",
        "otel.service.name", "outboxer-tracing-it",
        "otel.traces.exporter", "logging",
        "otel.metrics.exporter", "none",
        "otel.logs.exporter", "none",
        // Export each span within 100 ms of its end instead of 5 s.
        "otel.bsp.schedule.delay", "100"));
  }

  @ArquillianResource URL base;
  @Inject HeaderRecordingRelay relay;

  @Test
  void a_publish_in_a_traced_request_is_relayed_with_the_relay_spans_traceparent_in_the_callers_trace() {
    // In the server the deployment's URL comes without the trailing slash it has on the client.
    URI publish = URI.create(base.toString().endsWith("/") ? base.toString() : base + "/")
        .resolve("traced-api/traced-publish");
    Http.Response response = new Http(base).send("POST", publish, null,
        "traceparent", "00-" + TRACE_ID + "-" + CALLER_SPAN_ID + "-01", "tracestate", "vendor=caller");
    assertThat(response.status()).as("POST %s: %s", publish, response.body()).isEqualTo(200);
    long id = Long.parseLong(response.body().trim());

    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> relay.headersOf(id) != null);
    Map<String, String> headers = relay.headersOf(id);
    Matcher traceparent = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-01").matcher(headers.get("traceparent"));
    assertThat(traceparent.matches()).as("traceparent %s", headers.get("traceparent")).isTrue();
    assertThat(traceparent.group(1)).isEqualTo(TRACE_ID);
    assertThat(headers.get("tracestate")).isEqualTo("vendor=caller");
    String relaySpanId = traceparent.group(2);

    // The relay span is exported when the relay's call is over; the request's span when it ended.
    AtomicReference<List<ExportedSpan>> spans = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
      spans.set(exportedSpans(TRACE_ID));
      return spans.get().stream().anyMatch(span -> span.spanId().equals(relaySpanId))
          && spans.get().stream().anyMatch(span -> span.kind().equals("SERVER"));
    });
    ExportedSpan relaySpan = spans.get().stream().filter(span -> span.spanId().equals(relaySpanId)).findFirst()
        .orElseThrow();
    assertThat(relaySpan.name()).isEqualTo("publish traced");
    assertThat(relaySpan.kind()).isEqualTo("PRODUCER");
    assertThat(relaySpan.tracer()).startsWith("dev.outboxer.opentelemetry");
    assertThat(relaySpan.attributes()).containsPattern("outboxer\\.message\\.id=" + id + "[,}]")
        .contains("outboxer.outcome=confirmed");
    assertThat(spans.get()).filteredOn(span -> span.kind().equals("SERVER")).singleElement()
        .satisfies(request -> {
          assertThat(request.name()).endsWith("/traced-api/traced-publish");
          assertThat(request.spanId()).isNotIn(CALLER_SPAN_ID, relaySpanId);
        });
  }

  /** A span as the logging exporter wrote it to messages.log. */
  record ExportedSpan(String name, String traceId, String spanId, String kind, String tracer, String attributes) {}

  /** The spans of a trace the logging exporter wrote to messages.log, in the order they were written. */
  static List<ExportedSpan> exportedSpans(String traceId) {
    // Liberty runs with the server's output directory as the working directory.
    Path log = Path.of("logs", "messages.log");
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .map(EXPORTED_SPAN::matcher)
          .filter(Matcher::find)
          .filter(matcher -> matcher.group(2).equals(traceId))
          .map(matcher -> new ExportedSpan(matcher.group(1), matcher.group(2), matcher.group(3), matcher.group(4),
              matcher.group(5), matcher.group(6)))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + log.toAbsolutePath(), e);
    }
  }
}
