package dev.outboxer.health;

import static dev.outboxer.health.HealthProbe.data;
import static dev.outboxer.health.HealthProbe.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A node started while its database is down starts anyway, is not ready and says why, stays live,
 * and completes its start-up once the database answers: then it is ready and relays.
 *
 * <p>Needs a PostgreSQL cluster of its own that it may stop and start, named by {@value #CLUSTER}
 * (for example {@code "15 chaos"}, driven with {@code pg_ctlcluster}), and {@code
 * outboxer.test.postgresql.url} pointing at it; skipped otherwise. See docs/guides/health.md, "Starting before the database".
 */
@EnabledIfSystemProperty(named = DatabaseDownAtStartTest.CLUSTER, matches = ".+")
class DatabaseDownAtStartTest {

  static final String CLUSTER = "outboxer.test.postgresql.cluster";

  @Test
  void a_node_started_while_the_database_is_down_is_not_ready_until_the_database_answers_then_relays()
      throws Exception {
    TestDatabase.POSTGRESQL.resetSchema();
    stopCluster();
    try (LogCapture logs = LogCapture.of("dev.outboxer");
        OutboxTestContainer container = OutboxTestContainer.builder(JdbcTarget.of(TestDatabase.POSTGRESQL))
            .viaDataSource()
            .config("outbox.orders.relay", "recording")
            .config("outbox.orders.partitions", "2")
            .beans(RecordingRelay.class)
            .start()) {
      HealthProbe probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
      JsonObject waiting = probe.readiness(OutboxStartedCheck.NAME);
      assertThat(status(waiting)).isEqualTo("DOWN");
      assertThat(data(waiting).getString("orders")).startsWith("not started: waiting for the database");
      assertThat(status(probe.liveness(OutboxWorkersCheck.NAME))).isEqualTo("UP");
      List<String> warnings = logs.warnings();
      assertThat(warnings).filteredOn(w -> w.contains("waiting for the database")).hasSize(1);
      assertThat(warnings).filteredOn(w -> w.contains("waiting for the database")).first().asString()
          .contains("Connection").contains("data source");

      Outbox outbox = container.select(Outbox.class);
      assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish("orders", new Ping("g", 1))))
          .hasStackTraceContaining("Outboxer has not started yet: waiting for the database");

      cluster("start");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      JsonObject ready = probe.readiness(OutboxStartedCheck.NAME);
      while (!"UP".equals(status(ready)) && System.nanoTime() < deadline) {
        Thread.sleep(200);
        ready = probe.readiness(OutboxStartedCheck.NAME);
      }
      assertThat(status(ready)).as("readiness once the database answers: %s", ready).isEqualTo("UP");
      assertThat(data(ready).getString("orders")).isEqualTo("started, 2 partition worker(s) on this node");
      assertThat(logs.warnings()).filteredOn(w -> w.contains("waiting for the database")).hasSize(1);
      assertThat(logs.messages(Level.INFO)).anyMatch(m -> m.contains("the database answers"));

      long id = container.inTransaction(() -> outbox.publish("orders", new Ping("g", 2)));
      RecordingRelay relay = container.select(RecordingRelay.class);
      assertThat(relay.awaitConfirmations(1, Duration.ofSeconds(20))).extracting(r -> r.id()).containsExactly(id);
    } finally {
      cluster("start");
    }
  }

  @Test
  void a_schema_missing_once_the_database_answers_keeps_the_node_not_ready_with_the_reason_at_severe()
      throws Exception {
    TestDatabase.POSTGRESQL.resetSchema();
    TestDatabase.POSTGRESQL.dropSchema();
    stopCluster();
    try (LogCapture logs = LogCapture.of("dev.outboxer");
        OutboxTestContainer container = OutboxTestContainer.builder(JdbcTarget.of(TestDatabase.POSTGRESQL))
            .viaDataSource()
            .config("outbox.orders.relay", "recording")
            .beans(RecordingRelay.class)
            .start()) {
      HealthProbe probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
      cluster("start");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      JsonObject failed = probe.readiness(OutboxStartedCheck.NAME);
      while (!data(failed).getString("orders").contains("failed to start") && System.nanoTime() < deadline) {
        Thread.sleep(200);
        failed = probe.readiness(OutboxStartedCheck.NAME);
      }
      assertThat(status(failed)).isEqualTo("DOWN");
      assertThat(data(failed).getString("orders"))
          .startsWith("not started: failed to start once the database answered: ");
      assertThat(logs.messages(Level.SEVERE)).anyMatch(m -> m.contains("could not start once the database answered"));
      assertThat(status(probe.liveness(OutboxWorkersCheck.NAME))).isEqualTo("UP");
      Outbox outbox = container.select(Outbox.class);
      assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish("orders", new Ping("g", 1))))
          .hasStackTraceContaining("Outboxer has not started yet: failed to start once the database answered");
    } finally {
      cluster("start");
      TestDatabase.POSTGRESQL.resetSchema();
    }
  }

  /** Stops the cluster and makes sure the test database is the one that went away. */
  private static void stopCluster() throws Exception {
    cluster("stop");
    try (java.sql.Connection answered = TestDatabase.POSTGRESQL.connect()) {
      cluster("start");
      throw new IllegalStateException(TestDatabase.POSTGRESQL.url() + " still answers after pg_ctlcluster "
          + System.getProperty(CLUSTER) + " stop: point outboxer.test.postgresql.url at that cluster");
    } catch (java.sql.SQLException down) {
      // as intended
    }
  }

  private static void cluster(String action) throws Exception {
    String[] cluster = System.getProperty(CLUSTER).trim().split("\\s+");
    Process process = new ProcessBuilder("pg_ctlcluster", cluster[0], cluster[1], action).inheritIO().start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroy();
      throw new IllegalStateException("pg_ctlcluster " + action + " did not finish");
    }
    // "start" of a running cluster and "stop" of a stopped one exit 2: the state wanted holds anyway.
  }
}
