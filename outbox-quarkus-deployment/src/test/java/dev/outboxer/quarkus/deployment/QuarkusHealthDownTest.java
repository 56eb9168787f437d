package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.cdi.internal.work.OutboxRuntime;
import dev.outboxer.testing.DatabaseGate;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * outbox-health's readiness in SmallRye Health in a Quarkus application whose database comes and
 * goes: the application reaches PostgreSQL through a {@link DatabaseGate}, closed when it starts.
 * Readiness {@code outbox-started} is DOWN and says Outboxer waits for the database (liveness
 * {@code outbox-workers} stays UP); once the gate opens it is UP and the outbox relays; once the
 * database is gone again {@code outbox-lag} is DOWN (the outbox sets a {@code max-lag} and its lag
 * cannot be read); once the workers are stopped (as Quarkus' shutdown stops them) {@code
 * outbox-started} is DOWN.
 */
class QuarkusHealthDownTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, () -> {
    // A port where nothing listens yet: the test opens a gate on it to the real database.
    URI real = database();
    int port;
    try {
      port = new DatabaseGate(real.getHost(), real.getPort()).port();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    QuarkusHealthDownTest.APP.overrideConfigKey("quarkus.datasource.jdbc.url",
        TestDatabase.POSTGRESQL.url().replace(real.getHost() + ":" + real.getPort(), "127.0.0.1:" + port));
  }, QuarkusHealthDownTest.class, AuditService.class, AuditEntry.class, TestOrder.class, RecordingRelay.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.orders.max-poll-interval", "500ms")
      .overrideConfigKey("outbox.orders.health.max-lag", "1h")
      .overrideConfigKey("outbox.health.refresh-interval", "100ms")
      // Agroal gives up on a connection it cannot have at once instead of waiting out its default 5 s
      .overrideConfigKey("quarkus.datasource.jdbc.acquisition-timeout", "1s");

  @Inject SmallRyeHealthReporter health;
  @Inject AuditService audit;
  @Inject RecordingRelay relayed;
  @Inject OutboxRuntime runtime;

  @Test
  void readinessIsDownWhileTheDatabaseIsGoneAndOnceTheWorkersStopped() throws Exception {
    URI real = database();
    URI configured = URI.create(ConfigProvider.getConfig().getValue("quarkus.datasource.jdbc.url", String.class)
        .substring("jdbc:".length()));
    try (DatabaseGate gate = new DatabaseGate(real.getHost(), real.getPort(), configured.getPort())) {
      databaseComesAndGoes(gate);
    }
  }

  private void databaseComesAndGoes(DatabaseGate gate) throws Exception {
    JsonObject waiting = readiness("outbox-started");
    assertThat(waiting.getString("status")).as("%s", waiting).isEqualTo("DOWN");
    assertThat(waiting.getJsonObject("data").getString("orders")).startsWith("not started: waiting for the database");
    assertThat(liveness("outbox-workers").getString("status")).isEqualTo("UP");

    gate.open();
    await().atMost(Duration.ofSeconds(60)).until(() -> "UP".equals(readiness("outbox-started").getString("status")));
    long id = audit.record("orders", 1, "ada", 1);
    assertThat(relayed.awaitConfirmations(1, Duration.ofSeconds(30))).extracting(r -> r.id()).containsExactly(id);
    await().atMost(Duration.ofSeconds(10)).until(() -> "UP".equals(readiness("outbox-lag").getString("status")));

    gate.close();   // the database is gone: nothing listens any more, open connections are cut
    await().atMost(Duration.ofSeconds(30)).until(() -> "DOWN".equals(readiness("outbox-lag").getString("status")));
    assertThat(readiness("outbox-lag").getJsonObject("data").getString("orders.error"))
        .startsWith("the lag could not be read");

    runtime.stop();   // what Quarkus' shutdown does first (OutboxerStart, ShutdownEvent)
    JsonObject stopped = readiness("outbox-started");
    assertThat(stopped.getString("status")).as("%s", stopped).isEqualTo("DOWN");
    assertThat(stopped.getJsonObject("data").getString("orders")).startsWith("not started");
  }

  private JsonObject readiness(String check) {
    return check(health.getReadiness().getPayload(), check);
  }

  private JsonObject liveness(String check) {
    return check(health.getLiveness().getPayload(), check);
  }

  private static JsonObject check(JsonObject payload, String name) {
    return payload.getJsonArray("checks").stream().map(JsonObject.class::cast)
        .filter(check -> name.equals(check.getString("name"))).findFirst()
        .orElseThrow(() -> new AssertionError("no check " + name + " in " + payload));
  }

  /** The real database's host and port. */
  private static URI database() {
    URI real = URI.create(TestDatabase.POSTGRESQL.url().substring("jdbc:".length()));
    return real.getPort() < 0 ? URI.create("postgresql://" + real.getHost() + ":5432/") : real;
  }
}
