package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.DatabaseGate;
import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose database refuses connections at start-up starts, waits and begins by itself once the
 * database answers. The database is PostgreSQL behind a local port where nothing listens until the
 * test opens it and forwards it to the real server: what a database host whose server is down looks
 * like, without stopping a server others use. (outbox-health's DatabaseDownAtStartTest stops a real
 * cluster of its own.)
 */
class UnreachableDatabaseAtStartTest {

  @BeforeEach
  void database() {
    TestDatabase.POSTGRESQL.assumeAvailable();
    TestDatabase.POSTGRESQL.resetSchema();
  }

  @Test
  void the_application_starts_outboxer_waits_refuses_to_publish_and_starts_once_the_database_answers()
      throws Exception {
    URI real = URI.create(TestDatabase.POSTGRESQL.url().substring("jdbc:".length()));
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Logger runtimeLog = Logger.getLogger(OutboxRuntime.class.getName());
    java.util.logging.Handler handler = new java.util.logging.Handler() {
      @Override public void publish(LogRecord record) { records.add(record); }
      @Override public void flush() {}
      @Override public void close() {}
    };
    Level level = runtimeLog.getLevel();
    runtimeLog.setLevel(Level.INFO);
    runtimeLog.addHandler(handler);
    try (DatabaseGate gate = new DatabaseGate(real.getHost(), real.getPort() < 0 ? 5432 : real.getPort());
        OutboxTestContainer container = OutboxTestContainer.builder(JdbcTarget.of(
                "jdbc:postgresql://127.0.0.1:" + gate.port() + real.getRawPath()
                    + (real.getRawQuery() == null ? "" : "?" + real.getRawQuery()),
                TestDatabase.POSTGRESQL.user(), TestDatabase.POSTGRESQL.password()))
            .viaDataSource()
            .config("outbox.orders.relay", "recording")
            .beans(RecordingRelay.class)
            .start()) {
      OutboxAdmin admin = container.select(OutboxAdmin.class);
      assertThat(admin.started()).isFalse();
      assertThat(admin.notStartedReason()).hasValueSatisfying(reason -> assertThat(reason)
          .startsWith("waiting for the database (the @OutboxPersistence data source): ")
          .contains("refused"));
      assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).singleElement()
          .satisfies(r -> assertThat(r.getMessage()).startsWith("Outboxer has not started: waiting for the database"));
      Outbox outbox = container.select(Outbox.class);
      assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish("orders", new Keyed("k", 1))))
          .hasStackTraceContaining("Outbox 'orders': Outboxer has not started yet: waiting for the database")
          .hasStackTraceContaining("Nothing was written.");

      Thread.sleep(1500); // one retry fails meanwhile, quietly
      gate.open();
      Eventually.until(Duration.ofSeconds(40), "Outboxer started", admin::started,
          () -> admin.notStartedReason().orElse("no reason"));
      assertThat(admin.notStartedReason()).isEmpty();
      assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).hasSize(1);
      assertThat(records).anyMatch(r -> r.getLevel() == Level.INFO && r.getMessage().contains("the database answers"));

      long id = container.inTransaction(() -> outbox.publish("orders", new Keyed("k", 2)));
      assertThat(container.select(RecordingRelay.class).awaitConfirmations(1)).extracting(r -> r.id())
          .containsExactly(id);
    } finally {
      runtimeLog.removeHandler(handler);
      runtimeLog.setLevel(level);
    }
  }
}
