package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OrderingUnitsTest {

  private long nextId = 1;

  private OutboxRecord record(String group) {
    return new OutboxRecord(nextId++, "orders", 0, group, "T", "application/json", new byte[0], Map.of(), 0,
        Instant.EPOCH);
  }

  @Test
  void waves_hold_the_kth_record_of_every_unit_in_id_order() {
    OutboxRecord a1 = record("a");
    OutboxRecord b1 = record("b");
    OutboxRecord a2 = record("a");
    OutboxRecord n1 = record(null);
    OutboxRecord a3 = record("a");
    OutboxRecord n2 = record(null);
    OutboxRecord b2 = record("b");
    List<OutboxRecord> batch = List.of(a1, b1, a2, n1, a3, n2, b2);

    assertThat(OrderingUnits.waves(Ordering.GROUP, batch))
        .containsExactly(List.of(a1, b1, n1, n2), List.of(a2, b2), List.of(a3));
    assertThat(OrderingUnits.waves(Ordering.NONE, batch)).containsExactly(batch);
    assertThat(OrderingUnits.waves(Ordering.TOTAL, batch)).hasSize(7).allMatch(wave -> wave.size() == 1);
    assertThat(OrderingUnits.waves(Ordering.GROUP, List.of())).isEmpty();
  }

  @Test
  void units_are_the_group_in_group_mode_the_batch_in_total_mode_and_none_in_none_mode() {
    OutboxRecord a = record("a");
    OutboxRecord alsoA = record("a");
    OutboxRecord b = record("b");
    OutboxRecord ungrouped = record(null);

    assertThat(OrderingUnits.unitOf(Ordering.GROUP, a)).isEqualTo(OrderingUnits.unitOf(Ordering.GROUP, alsoA))
        .isNotEqualTo(OrderingUnits.unitOf(Ordering.GROUP, b));
    assertThat(OrderingUnits.unitOf(Ordering.GROUP, ungrouped)).as("a unit of its own").isNull();
    assertThat(OrderingUnits.unitOf(Ordering.TOTAL, a)).isNotNull().isSameAs(OrderingUnits.unitOf(Ordering.TOTAL, b))
        .isSameAs(OrderingUnits.unitOf(Ordering.TOTAL, ungrouped));
    assertThat(OrderingUnits.unitOf(Ordering.NONE, a)).isNull();
  }
}
