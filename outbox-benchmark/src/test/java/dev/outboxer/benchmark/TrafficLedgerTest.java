package dev.outboxer.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's books: lost, duplicated and foreign messages are told apart, latencies land in the window of their publish. */
class TrafficLedgerTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void counts_what_was_lost_and_what_arrived_twice_and_files_latencies_by_publishing_window() {
    long start = System.nanoTime() - 10 * SECOND;
    TrafficLedger ledger = new TrafficLedger(100, start, 5 * SECOND, 2);
    ledger.publishing(101, start + SECOND);          // first window
    ledger.committed(101);
    ledger.publishing(102, start + 6 * SECOND);      // second window
    ledger.committed(102);
    ledger.publishing(103, start + 7 * SECOND);      // published, never arrives
    ledger.committed(103);
    ledger.publishing(104, start + 7 * SECOND);      // rolled back: does not exist
    ledger.rolledBack(104);

    ledger.received(101);
    ledger.received(102);
    ledger.received(102);                            // delivered again
    ledger.received(99);                             // from before the run

    assertThat(ledger.publishedCount()).isEqualTo(3);
    assertThat(ledger.relayedCount()).isEqualTo(2);
    assertThat(ledger.duplicates()).isEqualTo(1);
    assertThat(ledger.strangers()).isEqualTo(1);
    assertThat(ledger.lostCount()).isEqualTo(1);
    assertThat(ledger.lost(5)).containsExactly(103L);
    assertThat(ledger.relayedUnpublished()).isZero();
    assertThat(ledger.latencies(0)).hasSize(1);
    assertThat(ledger.latencies(1)).hasSize(1);
    assertThat(ledger.latencies(0)[0]).isGreaterThan(ledger.latencies(1)[0]);
  }

  @Test
  void the_soak_fails_on_latency_growth_table_growth_and_loss_but_in_correctness_mode_only_on_loss() {
    TableSizes small = new TableSizes(10 << 20, 2 << 20, 12 << 20, 8192, 0, 0, 1);
    TableSizes bloated = new TableSizes(30 << 20, 2 << 20, 32 << 20, 8192, 0, 0, 1);
    List<Soak.Window> windows = List.of(new Soak.Window(0, new float[] {1, 2, 10}, small, "1"),
        new Soak.Window(1, new float[] {1, 2, 20}, bloated, "1"));
    TrafficLedger ledger = new TrafficLedger(0, System.nanoTime(), SECOND, 1);
    ledger.publishing(1, System.nanoTime());
    ledger.committed(1);

    assertThat(Soak.checks(TestDatabase.POSTGRESQL, windows, ledger, ledger.lostCount(), true, true))
        .hasSize(3)
        .anySatisfy(failure -> assertThat(failure).contains("p99 latency grew from 10.0 ms", "to 20.0 ms"))
        .anySatisfy(failure -> assertThat(failure).contains("the heap of outbox_message grew from 10.0 MB"))
        .anySatisfy(failure -> assertThat(failure).contains("1 published message(s) never reached the relay"));
    assertThat(Soak.checks(TestDatabase.POSTGRESQL, windows, ledger, ledger.lostCount(), true, false))
        .singleElement().asString().contains("never reached the relay");
  }
}
