package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.LogCapture;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/** A relay that keeps breaking the contract is said at WARNING at most once a minute per partition and kind. */
class RelayWarningsTest {

  private static final OutboxSettings SETTINGS = new OutboxSettings("orders", "scripted", Ordering.GROUP, 2,
      OutboxSettings.UNLIMITED_ATTEMPTS, java.util.List.of(), Duration.ofSeconds(1), Duration.ofSeconds(1), false, 100,
      Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(60), Long.MAX_VALUE,
      Duration.ofDays(365), 10_000, null, Duration.ofHours(1), false, Map.of());

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final RelayWarnings warnings = new RelayWarnings(nanos::get);

  @Test
  void a_relay_that_throws_is_said_at_warning_at_most_once_a_minute_per_partition_and_at_fine_in_between() {
    try (LogCapture log = LogCapture.of(BatchProcessor.class)) {
      threw(0); // WARNING
      nanos.addAndGet(Duration.ofSeconds(59).toNanos());
      threw(0); // FINE: 59 s later
      threw(1); // WARNING: another partition
      nanos.addAndGet(Duration.ofSeconds(1).toNanos());
      threw(0); // WARNING: a minute after the first

      assertThat(log.records()).extracting(record -> record.getLevel())
          .containsExactly(Level.WARNING, Level.FINE, Level.WARNING, Level.WARNING);
      assertThat(log.warnings()).allSatisfy(text -> assertThat(text)
          .contains("the relay 'scripted' threw java.io.IOException: broker went away")
          .contains("said at most once a minute per partition; the other times at FINE"));
      assertThat(log.warnings()).extracting(text -> text.substring(0, text.indexOf(':')))
          .containsExactly("Outbox 'orders', partition 0", "Outbox 'orders', partition 1",
              "Outbox 'orders', partition 0");
    }
  }

  @Test
  void each_kind_of_breach_has_its_own_minute() {
    try (LogCapture log = LogCapture.of(BatchProcessor.class)) {
      threw(0);
      warnings.brokenRelay(SETTINGS, 0, null, true, unreported(), false); // timed out: a kind of its own
      warnings.brokenRelay(SETTINGS, 0, null, false, unreported(), false); // returned without reporting
      threw(0);

      assertThat(log.records()).extracting(record -> record.getLevel())
          .containsExactly(Level.WARNING, Level.WARNING, Level.WARNING, Level.FINE);
    }
  }

  private void threw(int partition) {
    warnings.brokenRelay(SETTINGS, partition, new IOException("broker went away"), false, unreported(), false);
  }

  private static ReportingRelayBatch.Outcomes unreported() {
    OutboxRecord record = new OutboxRecord(7, "orders", 0, "g", "T", "application/json", new byte[0], Map.of(), 0,
        Instant.EPOCH);
    ReportingRelayBatch batch = new ReportingRelayBatch("orders", 0, Ordering.GROUP, List.of(record), 1, Instant.MAX, () -> true);
    batch.close();
    return batch.evaluate(new IllegalStateException("no outcome"));
  }
}
