package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.inject.Inject;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Outboxer's meters in Quarkus' Prometheus export ({@code /q/metrics}, {@code
 * quarkus-micrometer-registry-prometheus}): the counters ({@code outbox.published}, {@code
 * outbox.relayed}, {@code outbox.failed.attempts}), the gauges ({@code outbox.pending}, {@code
 * outbox.dead}, the lag {@code outbox.oldest.pending.age}) and the batch timer {@code
 * outbox.relay.batch}, tagged with the outbox, under Prometheus' names.
 */
class QuarkusPrometheusExportTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, OrderPlaced.class,
          ShipmentRequested.class, OrderService.class, RecordingRelay.class, TestOrder.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.orders.max-attempts", "1")
      .overrideConfigKey("outbox.shipping.relay", "recording")
      .overrideConfigKey("outbox.metrics.refresh-interval", "100ms");

  @TestHTTPResource("/q/metrics") URL metrics;
  @Inject OrderService orders;
  @Inject RecordingRelay relay;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void exportsTheCountersGaugesAndBatchTimerOfEachOutbox() throws Exception {
    relay.failGroup("fay");
    orders.place(900, "fay", 1, false, false);   // fails once: dead (max-attempts=1)
    orders.place(901, "gus", 1, false, false);   // relayed

    // The dead gauge is refreshed every refresh-interval: wait until the export shows the dead message.
    String exported = awaitExport("outbox_dead{outbox=\"orders\"", 1);
    assertThat(value(exported, "outbox_published_total{outbox=\"orders\"")).isGreaterThanOrEqualTo(2);
    assertThat(value(exported, "outbox_relayed_total{outbox=\"orders\"")).isGreaterThanOrEqualTo(1);
    assertThat(value(exported, "outbox_failed_attempts_total{outbox=\"orders\"")).isGreaterThanOrEqualTo(1);
    assertThat(value(exported, "outbox_dead_lettered_total{outbox=\"orders\"")).isGreaterThanOrEqualTo(1);
    assertThat(value(exported, "outbox_pending{outbox=\"orders\"")).isGreaterThanOrEqualTo(0);
    assertThat(exported).containsPattern("(?m)^outbox_oldest_pending_age\\w*\\{outbox=\"orders\"");
    // One batch or two: both messages may fall in one partition's batch, whatever the partition count.
    assertThat(value(exported, "outbox_relay_batch_seconds_count{outbox=\"orders\"")).isGreaterThanOrEqualTo(1);
    assertThat(exported).contains("outbox_relay_batch_seconds_sum{outbox=\"orders\"");
    assertThat(exported).contains("outbox_pending{outbox=\"shipping\"");
  }

  private String awaitExport(String series, double atLeast) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String exported;
    do {
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(metrics.toURI()).timeout(Duration.ofSeconds(30))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      exported = answer.body();
      if (value(exported, series) >= atLeast) {
        return exported;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    throw new AssertionError(series + " did not reach " + atLeast + " in /q/metrics:\n" + outboxLines(exported));
  }

  /** The value of the first sample whose line starts with {@code series} (name and first tag), or -1. */
  private static double value(String exported, String series) {
    Matcher sample = Pattern.compile("(?m)^" + Pattern.quote(series) + "[^}]*} (\\S+)").matcher(exported);
    return sample.find() ? Double.parseDouble(sample.group(1)) : -1;
  }

  private static String outboxLines(String exported) {
    return String.join("\n", exported.lines().filter(line -> line.startsWith("outbox")).toList());
  }
}
