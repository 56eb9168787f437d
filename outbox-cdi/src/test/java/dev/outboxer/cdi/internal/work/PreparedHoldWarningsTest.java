package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.PreparedTransaction;
import dev.outboxer.cdi.internal.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** How often a worker looks for a prepared holder and how often it says so. */
class PreparedHoldWarningsTest {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final PreparedHoldWarnings warnings = new PreparedHoldWarnings(nanos::get);
  private final Instant now = Instant.parse("2026-12-07T00:00:00Z");

  @Test
  void looks_at_most_every_ten_seconds_per_partition() {
    assertThat(warnings.checkDue("orders", 1)).isTrue();
    assertThat(warnings.checkDue("orders", 1)).isFalse();
    assertThat(warnings.checkDue("orders", 0)).as("another partition").isTrue();
    assertThat(warnings.checkDue("audit", 1)).as("another outbox").isTrue();
    advance(Duration.ofSeconds(9));
    assertThat(warnings.checkDue("orders", 1)).isFalse();
    advance(Duration.ofSeconds(1));
    assertThat(warnings.checkDue("orders", 1)).isTrue();
  }

  @Test
  void warns_once_a_minute_per_partition_at_once_for_another_transaction_and_says_when_the_partition_is_claimed_again() {
    Logger logger = Logger.getLogger(BatchProcessor.class.getName());
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO);
    try (LogCapture log = LogCapture.start()) {
      PreparedTransaction first = new PreparedTransaction("1_a_b", now.minusSeconds(42), "postgres", "shop");
      warnings.checked("orders", 1, Optional.of(first), now);
      assertThat(log.messages(Level.WARNING)).singleElement().asString().contains(
          "Outbox 'orders', partition 1: held by the prepared (two-phase) transaction '1_a_b' since "
              + "2026-12-06T23:59:18Z (42s) of database user 'postgres' in database 'shop'",
          "COMMIT PREPARED '1_a_b'", "ROLLBACK PREPARED '1_a_b'");
      advance(Duration.ofSeconds(59));
      warnings.checked("orders", 1, Optional.of(first), now);
      warnings.checked("orders", 0, Optional.empty(), now);
      assertThat(log.messages(Level.WARNING)).hasSize(1);
      advance(Duration.ofSeconds(1));
      warnings.checked("orders", 1, Optional.of(first), now);
      assertThat(log.messages(Level.WARNING)).hasSize(2);
      warnings.checked("orders", 1, Optional.of(new PreparedTransaction("1_c_d", now, "postgres", "shop")), now);
      assertThat(log.messages(Level.WARNING)).hasSize(3).last().asString().contains("'1_c_d'");

      warnings.claimed("orders", 0);
      warnings.claimed("orders", 1);
      warnings.claimed("orders", 1);
      assertThat(log.messages(Level.INFO)).filteredOn(m -> m.contains("claimed again")).singleElement().asString()
          .contains("partition 1", "'1_c_d'");
    } finally {
      logger.setLevel(level);
    }
  }

  private void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }
}
