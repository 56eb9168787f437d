package dev.outboxer.it.platform.workers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.outboxer.it.platform.PlatformArchives;
import dev.outboxer.it.platform.workers.lib.ConfigProbe;
import dev.outboxer.it.platform.workers.lib.ExecutorProbe;
import dev.outboxer.it.platform.workers.lib.OrderPaid;
import dev.outboxer.it.platform.workers.lib.ProbeLog;
import dev.outboxer.it.platform.workers.lib.WorkRows;

/**
 * Background work and configuration from a WEB-INF/lib jar, the way the library will be packaged:
 * (d) ManagedScheduledExecutorService + UserTransaction by JNDI, (e) EJB interval timer,
 * (f) MicroProfile Config from the jar, (g) MicroProfile Metrics over HTTP, JSON-B for payloads.
 */
@ExtendWith(ArquillianExtension.class)
class WorkersSmokeIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Deployment
    static WebArchive deployment() {
        JavaArchive library = ShrinkWrap.create(JavaArchive.class, "workers-lib.jar")
                .addPackage(ExecutorProbe.class.getPackage())
                .addAsManifestResource(PlatformArchives.beansXml(), "beans.xml")
                .addAsManifestResource("platform/workers-lib-config.properties", "microprofile-config.properties");
        return ShrinkWrap.create(WebArchive.class, "workers-smoke.war")
                .addAsLibrary(library)
                .addAsResource("platform/workers-persistence.xml", "META-INF/persistence.xml")
                .addAsWebInfResource(PlatformArchives.beansXml(), "beans.xml")
                .addAsLibraries(PlatformArchives.testLibraries());
    }

    @Inject
    ProbeLog log;

    @Inject
    ConfigProbe config;

    @Inject
    WorkRows rows;

    @ArquillianResource
    URL base;

    @Test
    void scheduled_task_from_library_jar_commits_with_user_transaction_from_jndi() {
        await().atMost(WAIT).until(() -> log.get("mses.ut.jndi") != null);
        assertThat(log.get("mses.lookup")).as(log.toString()).isEqualTo("ok");
        assertThat(log.get("mses.ut.jndi")).as(log.toString()).isEqualTo("committed");
        assertThat(log.get("tsr.jndi.status")).as(log.toString()).isEqualTo("ACTIVE");
        assertThat(log.get("tsr.beforeCompletion")).as(log.toString()).isEqualTo("called");
        assertThat(log.get("tsr.afterCompletion")).as(log.toString()).isEqualTo("COMMITTED");
        assertThat(rows.countBy("executor")).isEqualTo(1);
        await().atMost(WAIT).until(() -> log.count("mses.ticks") >= 3); // fixed delay keeps running
    }

    @Test
    void injected_user_transaction_and_registry_work_on_the_executor_thread() {
        await().atMost(WAIT).until(() -> log.get("resource.tsr.status") != null);
        System.out.println("Probe log: " + log); // printed in the server's console (messages.log)
        assertThat(log.get("cdi.ut.status")).as(log.toString()).isEqualTo("ACTIVE");
        assertThat(log.get("resource.tsr.status")).as(log.toString()).isEqualTo("NO_TRANSACTION");
        // Not a built-in CDI bean: inject it with @Resource or look it up in JNDI.
        assertThat(log.get("cdi.tsr.resolvable")).as(log.toString()).isEqualTo("false");
    }

    @Test
    void bean_managed_singleton_interval_timer_ticks_and_commits() {
        await().atMost(WAIT).until(() -> log.count("timer.ticks") >= 3);
        assertThat(log.get("timer.created")).isEqualTo("ok");
        assertThat(log.get("timer.info")).isEqualTo("outboxer-smoke-timer, persistent=false");
        assertThat(log.get("timer.status.before")).as(log.toString()).isEqualTo("NO_TRANSACTION");
        assertThat(log.get("timer.ut")).as(log.toString()).isEqualTo("committed");
        assertThat(rows.countBy("timer")).isEqualTo(1);
    }

    @Test
    void config_in_library_jar_is_read() {
        assertThat(config.greeting()).isEqualTo("hello from WEB-INF/lib");
        assertThat(config.outboxKeys()).contains("outbox.orders.relay", "outbox.orders.ordering");
    }

    @Test
    void jsonb_round_trips_a_record() {
        Jsonb jsonb = JsonbBuilder.create();
        String json = jsonb.toJson(new OrderPaid(42, "EUR"));
        assertThat(json).isEqualTo("{\"currency\":\"EUR\",\"orderId\":42}");
        assertThat(jsonb.fromJson(json, OrderPaid.class)).isEqualTo(new OrderPaid(42, "EUR"));
    }

    @Test
    @RunAsClient
    void metrics_endpoint_shows_tagged_counter_gauge_and_timer() throws Exception {
        URI metrics = URI.create("http://" + base.getHost() + ":" + base.getPort() + "/metrics?scope=application");
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<String> lines = response.body().lines().filter(l -> l.startsWith("outboxer_smoke_")).toList();
        assertThat(lines).as(response.body())
                .anySatisfy(l -> assertThat(l).startsWith("outboxer_smoke_published_total{")
                        .contains("outbox=\"orders\"").endsWith(" 3.0"))
                .anySatisfy(l -> assertThat(l).startsWith("outboxer_smoke_pending{")
                        .contains("outbox=\"orders\"").endsWith(" 7.0"))
                .anySatisfy(l -> assertThat(l).startsWith("outboxer_smoke_batch_seconds_count{")
                        .contains("outbox=\"orders\"").endsWith(" 1.0"));
        System.out.println("/metrics (application scope, outboxer_smoke_*):\n" + String.join("\n", lines));
    }
}
