package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OpenTransaction;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.store.OpenTransactions;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A transaction open elsewhere in a PostgreSQL database for long is named at WARNING (its session
 * looked up in {@code pg_stat_activity}), at most every five minutes per outbox, and its end said at
 * INFO; a short one, or a probe that was not asked, says nothing and looks nothing up.
 */
class LongTransactionWarningsTest {

  private static final long NOW_MICROS = 1_796_600_000_000_000L;
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LongTransactionWarnings warnings = new LongTransactionWarnings(nanos::get, Duration.ofMinutes(1));

  @Test
  void names_the_session_of_a_transaction_open_for_long_at_most_every_five_minutes_and_says_when_it_ended()
      throws Exception {
    TestDatabase database = TestDatabase.POSTGRESQL;
    Logger logger = Logger.getLogger(BatchProcessor.class.getName());
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO);
    try (Connection report = database.connect(); Connection worker = database.connect();
        LogCapture log = LogCapture.start()) {
      int reportPid;
      try (Statement statement = report.createStatement()) {
        statement.execute("SET application_name = 'nightly-report'");
        report.setAutoCommit(false);
        try (ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
          rows.next();
          reportPid = rows.getInt(1);
        }
      }
      AtomicInteger lookUps = new AtomicInteger();
      java.util.concurrent.Callable<Optional<dev.outboxer.OpenTransaction>> lookUp = () -> {
        lookUps.incrementAndGet();
        // The session as pg_stat_activity names it; its age as old as the probe's clock says (the test's
        // transaction is seconds old, the probe's times are made up).
        return OpenTransactions.oldest(worker).map(t -> new OpenTransaction(t.pid(), t.user(), t.application(),
            t.client(), t.state(), t.since(), Duration.ofMinutes(3), t.query()));
      };

      warnings.observed("orders", NOW_MICROS, NOW_MICROS - Duration.ofMinutes(3).toNanos() / 1000, lookUp);
      assertThat(log.messages(Level.WARNING)).singleElement().asString().contains(
          "Outbox 'orders': a transaction has been open for 180s in this database (pid " + reportPid,
          "application 'nightly-report'", "state 'idle in transaction'", "last query: SELECT pg_backend_pid()",
          "pg_terminate_backend(" + reportPid + ")", "Nothing is lost");

      nanos.addAndGet(Duration.ofMinutes(4).toNanos());
      warnings.observed("orders", NOW_MICROS, NOW_MICROS - Duration.ofMinutes(7).toNanos() / 1000, lookUp);
      assertThat(log.messages(Level.WARNING)).as("within five minutes").hasSize(1);
      assertThat(lookUps).as("no look-up while it would not be said").hasValue(1);

      nanos.addAndGet(Duration.ofMinutes(1).toNanos());
      warnings.observed("orders", NOW_MICROS, NOW_MICROS - Duration.ofMinutes(8).toNanos() / 1000, lookUp);
      assertThat(log.messages(Level.WARNING)).as("five minutes later").hasSize(2);

      report.rollback();
      warnings.observed("orders", NOW_MICROS, NOW_MICROS - 2_000_000, lookUp);
      assertThat(log.messages(Level.INFO)).anySatisfy(message -> assertThat(message).contains(
          "Outbox 'orders': the long transaction (pid " + reportPid + ") that held the outbox back has ended"));
    } finally {
      logger.setLevel(level);
    }
  }

  @Test
  void a_probe_that_saw_an_old_start_whose_session_look_up_finds_only_young_transactions_names_none() {
    // Seen in the soak: the probe counts an idle LISTEN session while the server delivers it notifications (its
    // transaction dated from the LISTEN, minutes ago); the look-up leaves such sessions out and finds a batch of a
    // few milliseconds. Naming that batch as "open for 342s" sent operators after the wrong session.
    OpenTransaction young = new OpenTransaction(4242, "app", "orders-service", "10.0.0.7", "active",
        java.time.Instant.parse("2026-12-07T10:00:19Z"), Duration.ofMillis(40), "COMMIT");
    try (LogCapture log = LogCapture.start()) {
      warnings.observed("orders", NOW_MICROS, NOW_MICROS - Duration.ofMinutes(6).toNanos() / 1000,
          () -> Optional.of(young));
      assertThat(log.messages(Level.WARNING)).isEmpty();
    }
  }

  @Test
  void a_short_transaction_or_a_probe_not_asked_says_nothing_and_looks_nothing_up() {
    AtomicInteger lookUps = new AtomicInteger();
    try (LogCapture log = LogCapture.start()) {
      warnings.observed("orders", NOW_MICROS, NOW_MICROS - Duration.ofSeconds(59).toNanos() / 1000, () -> {
        lookUps.incrementAndGet();
        return Optional.empty();
      });
      warnings.observed("orders", NOW_MICROS, 0, () -> {
        lookUps.incrementAndGet();
        return Optional.empty();
      });
      warnings.observed("orders", 0, 0, () -> {
        lookUps.incrementAndGet();
        return Optional.empty();
      });
      assertThat(log.atLeast(Level.INFO)).isEmpty();
      assertThat(lookUps).hasValue(0);
    }
  }
}
