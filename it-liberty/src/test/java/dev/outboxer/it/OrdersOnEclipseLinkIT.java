package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.support.OutboxTables;
import dev.outboxer.it.support.TimerInventory;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sample application exactly as built (target/orders.war: its persistence.xml names no
 * provider, so EclipseLink, Liberty's default) on PostgreSQL through the XA data source jdbc/orders
 * and the embedded JMS engine; the default worker mode (executor). Besides the shared contract: the
 * REST API and the metrics endpoint, over HTTP.
 */
@RequiresPostgres
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(NoFfdcIncidents.class)
@ExtendWith(ArquillianExtension.class)
class OrdersOnEclipseLinkIT extends OrderFlowContract {

  @Deployment
  static WebArchive deployment() {
    return OrdersArchives.sample("orders-eclipselink.war", OrdersOnEclipseLinkIT.class, OrderFlowContract.class,
            RequiresPostgres.class, RequiresPostgres.Condition.class, FreshPostgresSchema.class, NoFfdcIncidents.class, Http.class,
            Http.Response.class)
        .addClass(AppMetrics.class)
        .addPackage(OutboxTables.class.getPackage());
  }

  @Inject
  TimerInventory timers;

  @ArquillianResource
  URL base;

  @Test
  void the_persistence_unit_runs_on_eclipselink() {
    assertThat(tables.providerEntityManagerClass()).startsWith("org.eclipse.persistence.");
  }

  @Test
  void workers_run_on_the_managed_executor_and_create_no_ejb_timers() {
    // outbox.worker is not set: executor mode. Outboxer's timer bean is deployed but idle.
    assertThat(timers.infos()).noneMatch(info -> info.startsWith("outboxer-"));
  }

  @Test
  @RunAsClient
  void rest_api_places_orders_reports_a_rolled_back_one_and_shows_events_and_counts() {
    Http http = new Http(base);
    URI api = URI.create(base.toString()).resolve("api/");
    String customer = "rest-" + UUID.randomUUID().toString().substring(0, 8);
    String order = "{\"customer\":\"" + customer + "\",\"item\":\"globe\",\"quantity\":1}";

    Http.Response viaCdi = http.postJson(api.resolve("orders"), order);
    assertThat(viaCdi.status()).as(viaCdi.body()).isEqualTo(201);
    assertThat(viaCdi.body()).contains("\"via\":\"cdi\"");
    Http.Response viaEjb = http.postJson(api.resolve("orders?via=ejb"), order);
    assertThat(viaEjb.status()).as(viaEjb.body()).isEqualTo(201);
    assertThat(viaEjb.body()).contains("\"via\":\"ejb\"");

    Http.Response failed = http.postJson(api.resolve("orders?via=ejb&fail=true"), order);
    assertThat(failed.status()).as(failed.body()).isEqualTo(500);
    assertThat(failed.body()).contains("rolled back", "\"rolledBack\":");
    long failedOrder = failed.longField("orderId");
    assertThat(http.get(api.resolve("orders/" + failedOrder)).status()).isEqualTo(404);
    assertThat(http.get(api.resolve("orders/" + viaCdi.longField("orderId"))).status()).isEqualTo(200);

    Http.Response invalid = http.postJson(api.resolve("orders"), "{\"customer\":\"\",\"item\":\"x\",\"quantity\":1}");
    assertThat(invalid.status()).isEqualTo(400);

    long first = viaCdi.longField("orderPlacedMessageId");
    long second = viaEjb.longField("orderPlacedMessageId");
    eventually(DELIVERY).untilAsserted(() -> {
      String events = http.get(api.resolve("events?queue=orders&customer=" + customer)).body();
      assertThat(events).contains("\"outboxId\":" + first, "\"outboxId\":" + second);
      assertThat(events.indexOf("\"outboxId\":" + first)).as("arrival order").isLessThan(events.indexOf("\"outboxId\":" + second));
      assertThat(events).doesNotContain("\"orderId\":" + failedOrder + ",");
    });

    Http.Response counts = http.get(api.resolve("outboxes/orders"));
    assertThat(counts.status()).isEqualTo(200);
    assertThat(counts.body()).contains("\"outbox\":\"orders\"", "\"pending\":", "\"retrying\":", "\"dead\":0");
    Http.Response unknown = http.get(api.resolve("outboxes/nope"));
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body()).contains("audit", "orders", "shipping");
    assertThat(http.get(api.resolve("outboxes/shipping/dead")).status()).isEqualTo(200);
    assertThat(http.post(api.resolve("outboxes/shipping/dead/retry")).body()).contains("\"revived\":");
  }

  @Test
  @RunAsClient
  void metrics_endpoint_counts_published_and_relayed_messages_tagged_by_outbox() {
    Http http = new Http(base);
    URI metricsUri = http.root().resolve("metrics?scope=application");
    URI api = URI.create(base.toString()).resolve("api/");
    String before = http.get(metricsUri).body();
    double publishedBefore = Http.sample(before, "outbox_published_total", "orders");
    double auditBefore = Http.sample(before, "outbox_published_total", "audit");
    double relayedBefore = Http.sample(before, "outbox_relayed_total", "orders");

    String customer = "metrics-" + UUID.randomUUID().toString().substring(0, 8);
    for (int n = 0; n < 3; n++) {
      Http.Response placed = http.postJson(api.resolve("orders"),
          "{\"customer\":\"" + customer + "\",\"item\":\"cup\",\"quantity\":" + (n + 1) + "}");
      assertThat(placed.status()).as(placed.body()).isEqualTo(201);
    }
    http.postJson(api.resolve("orders?fail=true"), "{\"customer\":\"" + customer + "\",\"item\":\"cup\",\"quantity\":9}");

    eventually(Duration.ofSeconds(60)).untilAsserted(() -> {
      String after = http.get(metricsUri).body();
      assertThat(Http.sample(after, "outbox_published_total", "orders")).as("published, rolled back not counted")
          .isEqualTo(publishedBefore + 3);
      assertThat(Http.sample(after, "outbox_published_total", "audit")).isEqualTo(auditBefore + 3);
      assertThat(Http.sample(after, "outbox_relayed_total", "orders")).isGreaterThanOrEqualTo(relayedBefore + 3);
    });
    String after = http.get(metricsUri).body();
    for (String outbox : new String[] {"orders", "audit", "shipping"}) {
      assertThat(Http.hasSample(after, "outbox_pending", outbox)).as("outbox_pending gauge of %s", outbox).isTrue();
      assertThat(Http.hasSample(after, "outbox_dead", outbox)).as("outbox_dead gauge of %s", outbox).isTrue();
      assertThat(Http.hasSample(after, "outbox_oldest_pending_age_seconds", outbox)).isTrue();
      assertThat(Http.hasSample(after, "outbox_relay_batch_seconds_count", outbox)).as("batch timer of %s", outbox).isTrue();
    }
  }

  @Inject
  AppMetrics metrics;

  @Override
  protected OptionalLong outboxCounter(String name, String outbox) {
    return OptionalLong.of(metrics.count(name, outbox));
  }
}
