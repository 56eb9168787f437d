package dev.outboxer.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.TestRelayBatch;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The benchmark's relay counts what commits, and what it confirmed in a transaction that then rolled back. */
class BenchRelayTest {

  private static final String OUTBOX = "bench-relay-test";

  private final TransactionManager transactions = com.arjuna.ats.jta.TransactionManager.transactionManager();

  @AfterEach
  void clear() {
    BenchRelay.clear(OUTBOX);
  }

  @Test
  void a_batch_confirmed_in_a_transaction_that_rolls_back_is_counted_as_rolled_back_not_as_committed()
      throws Exception {
    DrainProbe probe = new DrainProbe(1, 10, true);
    BenchRelay.plan(OUTBOX, new BenchRelay.Plan(probe, null, null));

    transactions.begin();
    new BenchRelay().relay(batch(1, 2, 3));
    transactions.rollback();

    transactions.begin();
    new BenchRelay().relay(batch(1, 2, 3));
    transactions.commit();

    assertThat(probe.rolledBackBatches()).isEqualTo(1);
    assertThat(probe.rolledBackMessages()).isEqualTo(3);
    assertThat(probe.committed()).isEqualTo(3);
    assertThat(probe.problems()).isEmpty();
  }

  private static TestRelayBatch batch(long... ids) {
    List<OutboxRecord> records = java.util.Arrays.stream(ids)
        .mapToObj(id -> new OutboxRecord(id, OUTBOX, 0, "g", "T", "application/json", new byte[0], Map.of(), 0,
            Instant.EPOCH))
        .toList();
    return new TestRelayBatch(Ordering.GROUP, records, Duration.ofMinutes(1));
  }
}
