package dev.outboxer.health;

import static dev.outboxer.health.HealthProbe.data;
import static dev.outboxer.health.HealthProbe.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Readiness {@code outbox-long-transaction} names the session that holds a snapshot open elsewhere
 * in the PostgreSQL database for longer than {@code outbox.health.long-transaction} (its pid and
 * age) and stays UP: the transaction is not this node's, and taking nodes out of service would not
 * end it.
 */
class LongTransactionCheckTest {

  private static final String CHECK = "outbox-long-transaction";

  @Test
  void a_snapshot_held_open_elsewhere_is_named_with_its_pid_and_age_and_readiness_stays_up() throws Exception {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.orders.relay", "recording")
        .config("outbox.health.refresh-interval", "100ms")
        .config("outbox.health.long-transaction", "1s")
        .beans(RecordingRelay.class)
        .start()) {
      HealthProbe probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
      Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> status(probe.readiness("outbox-started"))
          .equals("UP"));
      JsonObject quiet = probe.readiness(CHECK);
      assertThat(status(quiet)).isEqualTo("UP");
      assertThat(data(quiet)).doesNotContainKey("warning");

      try (Connection report = TestDatabase.POSTGRESQL.connect(); Statement statement = report.createStatement()) {
        statement.execute("SET application_name = 'nightly-report'");
        report.setAutoCommit(false);
        report.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        int pid;
        try (ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
          rows.next();
          pid = rows.getInt(1);
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> data(probe.readiness(CHECK))
            .containsKey("warning"));
        JsonObject held = probe.readiness(CHECK);

        assertThat(status(held)).isEqualTo("UP");
        assertThat(data(held).getString("warning")).contains("pid " + pid, "application 'nightly-report'",
            "open for ", "pg_terminate_backend(" + pid + ")");
        assertThat(data(held).getJsonNumber("oldest-transaction-pid").intValue()).isEqualTo(pid);
        assertThat(data(held).getJsonNumber("oldest-transaction-age-seconds").longValue()).isGreaterThanOrEqualTo(1);
        report.rollback();
      }
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !data(probe.readiness(CHECK))
          .containsKey("warning"));
    }
  }

  @Test
  void a_database_without_snapshots_to_name_says_so_and_is_up() {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.MARIADB)
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class)
        .start()) {
      HealthProbe probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
      Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> status(probe.readiness("outbox-started"))
          .equals("UP"));
      JsonObject answer = probe.readiness(CHECK);
      assertThat(status(answer)).isEqualTo("UP");
      assertThat(data(answer).getString("oldest-transaction")).contains("known on PostgreSQL only");
    }
  }
}
