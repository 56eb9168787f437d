package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordOutcomeTest {

  private static OutboxRecord record(long id, String group) {
    return new OutboxRecord(id, "orders", 0, group, "T", "application/json", new byte[0], Map.of(), 0,
        Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  void perOrderingUnitTheFirstRecordNotThroughFailsAndTheRestOfItsUnitIsHeldBack() {
    OutboxRecord a1 = record(1, "a");
    OutboxRecord b1 = record(2, "b");
    OutboxRecord a2 = record(3, "a");
    OutboxRecord b2 = record(4, "b");
    OutboxRecord c1 = record(5, "c");
    OutboxRecord d1 = record(6, "d");
    Instant at = Instant.now();
    IllegalStateException refused = new IllegalStateException("refused");
    IllegalStateException none = new IllegalStateException("no report");
    Map<Long, RecordOutcome.Report> reports = Map.of(
        1L, new RecordOutcome.Report(true, null, at, false),
        2L, new RecordOutcome.Report(false, refused, at, false),
        4L, new RecordOutcome.Report(true, null, at, false),
        6L, new RecordOutcome.Report(true, null, at, true));

    List<RecordOutcome> outcomes = RecordOutcome.settle(Ordering.GROUP, List.of(a1, b1, a2, b2, c1, d1),
        record -> reports.get(record.id()), none);

    assertThat(outcomes).extracting(RecordOutcome::kind).containsExactly(RecordOutcome.Kind.CONFIRMED,
        RecordOutcome.Kind.FAILED, RecordOutcome.Kind.UNREPORTED, RecordOutcome.Kind.CONFIRMATION_IGNORED,
        RecordOutcome.Kind.UNREPORTED, RecordOutcome.Kind.REPORTED_LATE);
    assertThat(outcomes.get(1).cause()).isSameAs(refused);
    assertThat(outcomes.get(2).cause()).isSameAs(none);
    assertThat(outcomes).extracting(RecordOutcome::charged).containsExactly(false, true, true, false, true, true);
    assertThat(outcomes.get(0).as(RecordOutcome.Kind.ROLLED_BACK).cause()).isNull();
  }

  @Test
  void inTotalOrderOneFailureHoldsBackTheRestOfTheBatchAndWithoutOrderNothing() {
    OutboxRecord one = record(1, "a");
    OutboxRecord two = record(2, "b");
    Map<Long, RecordOutcome.Report> reports = Map.of(2L, new RecordOutcome.Report(true, null, Instant.now(), false));
    IllegalStateException none = new IllegalStateException("no report");

    assertThat(RecordOutcome.settle(Ordering.TOTAL, List.of(one, two), r -> reports.get(r.id()), none))
        .extracting(RecordOutcome::kind)
        .containsExactly(RecordOutcome.Kind.UNREPORTED, RecordOutcome.Kind.CONFIRMATION_IGNORED);
    assertThat(RecordOutcome.settle(Ordering.NONE, List.of(one, two), r -> reports.get(r.id()), none))
        .extracting(RecordOutcome::kind)
        .containsExactly(RecordOutcome.Kind.UNREPORTED, RecordOutcome.Kind.CONFIRMED);
  }
}
